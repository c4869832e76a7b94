import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { Authentication } from "./Security.js"
import { Conflict, Forbidden, NotFound, ValidationError } from "./Domain/ApiErrors.js"
import { pathId } from "./Domain/Uuids.js"
import { inputJsonSchema, IntBetween, IsoTimestamp, Limit, Page, Payload } from "./Domain/Schemas.js"
import { Run, RunStatus } from "./Domain/Run.js"
import { Tag, Tags } from "./Domain/Tags.js"
import { RunDetail, RunEvent } from "./RunDetail.js"

/** A run's concurrency key: runs of one key share the trigger's `perKey` limit. */
export const ConcurrencyKey = Schema.String.pipe(
  Schema.minLength(1, { message: () => "must be 1 to 200 characters" }),
  Schema.maxLength(200, { message: () => "must be 1 to 200 characters" })
).annotations({
  description: "The run's concurrency key (1 to 200 characters): at most the trigger's `concurrency.perKey` runs of one key " +
    "are assigned, claimed or running at once, and waiting keys take free places in turn. Absent: read from the input " +
    "field the trigger's `concurrency.keyFrom` names, else none (runs without a key share one)."
})

/** `POST /runs/{id}/replay` body, itself optional: the replayed run's input when `input` is absent. */
export const ReplayRequest = Payload({
  input: Schema.optional(Schema.Unknown.annotations({
    jsonSchema: { description: "The new run's input; the replayed run's when absent. " + inputJsonSchema.description }
  }))
})

/** The longest a run may be delayed (`delaySeconds`, `runAt`): 30 days. */
export const maxDelaySeconds = 30 * 86_400

const DelaySeconds = IntBetween(0, maxDelaySeconds).annotations({
  description: "Seconds from now before the run may be placed (at most 30 days). Not with `runAt`."
})
const RunAt = IsoTimestamp.annotations({
  description: "When the run may be placed (ISO 8601, not in the past, at most 30 days ahead). Not with `delaySeconds`."
})

/** `delaySeconds` and `runAt` say the same thing two ways: one at most, the complaint on `runAt`. */
const oneWhen = <A extends { readonly delaySeconds?: number | undefined; readonly runAt?: Date | undefined }>(request: A) =>
  request.delaySeconds !== undefined && request.runAt !== undefined
    ? { path: ["runAt"], message: "runAt: give either delaySeconds or runAt, not both" }
    : true

/** What a run request may add to its input: when it may start, its rank in the queue, its time-to-live. */
export const RunOptionsFields = {
  delaySeconds: Schema.optional(DelaySeconds),
  runAt: Schema.optional(RunAt),
  priority: Schema.optional(IntBetween(-86_400, 86_400, 0).annotations({
    description: "Seconds the run ranks ahead in the queue: it is taken as if requested that many seconds earlier " +
      "(negative: later). A run that has waited longer than the difference still goes first."
  })),
  ttlSeconds: Schema.optional(IntBetween(1, maxDelaySeconds).annotations({
    description: "Overrides the trigger's `ttlSeconds`: a run not claimed this many seconds after it became " +
      "available ends `expired`."
  }))
}

/** The run request's options alone, with the rule between `delaySeconds` and `runAt` (the embedding API's `startRun`). */
export const RunOptions = Schema.Struct(RunOptionsFields).pipe(Schema.filter(oneWhen))

/** The run's input: the trigger's when absent. */
export const RunInputField = Schema.optional(Schema.Unknown.annotations({
  jsonSchema: { description: "The run's input; the trigger's `input` when absent. " + inputJsonSchema.description }
}))

/** `POST /triggers/{id}/run` body; the body itself is optional. */
export const RunRequest = Schema.Struct({
  input: RunInputField,
  tags: Schema.optional(Tags.annotations({
    description: "Up to 10 tags (each 1 to 64 characters of `[A-Za-z0-9_.:-]`); the run carries the trigger's `defaultTags` too, 10 in all at most."
  })),
  concurrencyKey: Schema.optional(ConcurrencyKey),
  ...RunOptionsFields
}).pipe(Schema.filter(oneWhen)).annotations({ parseOptions: { errors: "all", onExcessProperty: "ignore" } })

/** `PATCH /runs/{id}` body: move a run that is not placed yet (exactly one of the two). */
export const RescheduleRun = Schema.Struct({
  delaySeconds: Schema.optional(DelaySeconds),
  runAt: Schema.optional(RunAt)
}).pipe(
  Schema.filter((request) =>
    request.delaySeconds === undefined && request.runAt === undefined
      ? { path: ["runAt"], message: "runAt: give runAt or delaySeconds (0: now)" }
      : oneWhen(request)
  )
).annotations({ parseOptions: { errors: "all", onExcessProperty: "ignore" } })

const statusFilter = RunStatus.annotations({
  message: () => "status must be one of queued, assigned, claimed, running, succeeded, failed, timed_out, cancelled, expired"
})

export const RunListParams = Schema.Struct({
  status: Schema.optional(statusFilter),
  from: Schema.optional(IsoTimestamp),
  to: Schema.optional(IsoTimestamp),
  workerId: Schema.optional(Schema.UUID.annotations({ message: () => "workerId must be a UUID" })),
  tag: Schema.optional(Tag),
  cursor: Schema.optional(Schema.String),
  limit: Schema.optional(Limit)
}).annotations({ parseOptions: { errors: "all" } })

/** A repeat with the same key answers the first run (header here, `idempotencyKey` for MCP's run_trigger). */
export const IdempotencyKey = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(255)).annotations({
  message: () => "Idempotency-Key must be 1 to 255 characters"
})

export const IdempotencyHeaders = Schema.Struct({
  "idempotency-key": Schema.optional(IdempotencyKey)
})

const TriggerPath = Schema.Struct({ id: pathId("trigger") })
const EnvironmentPath = Schema.Struct({ envId: pathId("environment") })
const RunPath = Schema.Struct({ id: pathId("run") })

export class RunsApi extends HttpApiGroup.make("runs")
  .add(
    HttpApiEndpoint.post("requestRun", "/triggers/:id/run")
      .annotate(OpenApi.Summary, "Run a trigger")
      .setPath(TriggerPath)
      .setHeaders(IdempotencyHeaders)
      .setPayload(RunRequest)
      .addSuccess(Run, { status: 201 })
      // A repeated Idempotency-Key: the first run, unchanged.
      .addSuccess(Run, { status: 200 })
      .addError(NotFound.wire)
      .addError(Forbidden.wire)
      .annotate(OpenApi.Description,
        "Starts a run (operator+). The body is optional; `input` defaults to the trigger's. `delaySeconds` or " +
            "`runAt` hold the run `queued` until then (`availableAt`); `priority` ranks it ahead in the queue; " +
            "`ttlSeconds` (else the trigger's) ends it `expired` when no worker claims it in time. " +
          "With an `Idempotency-Key` header, a repeat with the same key answers the first run with 200.")
  )
  .add(
    HttpApiEndpoint.get("listTriggerRuns", "/triggers/:id/runs")
      .annotate(OpenApi.Summary, "List a trigger's runs")
      .annotate(OpenApi.Description, "viewer or higher. Newest first; filter by `status`, `tag` and a `from`/`to` creation window (ISO 8601).")
      .setPath(TriggerPath)
      .setUrlParams(RunListParams)
      .addSuccess(Page(Run))
      .addError(NotFound.wire)
      .addError(Forbidden.wire)
  )
  .add(
    HttpApiEndpoint.get("listEnvironmentRuns", "/environments/:envId/runs")
      .annotate(OpenApi.Summary, "List an environment's runs")
      .annotate(OpenApi.Description, "viewer or higher. Newest first; filter by `status`, `workerId`, `tag` and a `from`/`to` creation window (ISO 8601).")
      .setPath(EnvironmentPath)
      .setUrlParams(RunListParams)
      .addSuccess(Page(Run))
      .addError(NotFound.wire)
      .addError(Forbidden.wire)
  )
  .add(
    HttpApiEndpoint.post("cancelRun", "/runs/:id/cancel")
      .annotate(OpenApi.Summary, "Cancel a run")
      .setPath(RunPath)
      .addSuccess(Run)
      .addError(NotFound.wire)
      .addError(Forbidden.wire)
      .addError(Conflict.wire)
      .annotate(OpenApi.Description,
        "operator or higher. A queued or assigned run ends `cancelled` at once. A claimed or running run gets " +
          "`cancelRequestedAt` and stays with its worker (which learns of it from its heartbeat and its poll) until " +
          "the worker completes it, recorded as `cancelled`, or until `CANCEL_GRACE_SECONDS` pass, when it ends " +
          "`cancelled` anyway. Answers the run; a repeated cancel of a run still with its worker answers it unchanged. " +
          "A terminal run is 409. A cancelled run is never retried; its webhook reports `status: \"cancelled\"`.")
  )
  .add(
    HttpApiEndpoint.post("replayRun", "/runs/:id/replay")
      .annotate(OpenApi.Summary, "Replay a run")
      .setPath(RunPath)
      .setHeaders(IdempotencyHeaders)
      .setPayload(ReplayRequest)
      .addSuccess(Run, { status: 201 })
      .addSuccess(Run, { status: 200 })
      .addError(NotFound.wire)
      .addError(Forbidden.wire)
      .annotate(OpenApi.Description,
        "operator or higher. A new run of the same trigger with the same input (or the body's `input`) and tags, " +
          "`replayOfRunId` naming this run, with the trigger's current settings; any run can be replayed, ended or not. " +
          "It is a run request like `POST /triggers/{id}/run`: the trigger's `inputSchema` applies (400), so does an " +
          "`Idempotency-Key` (a repeat answers the first replay with 200), and it is audited as `run.requested` with " +
          "`replayOfRunId` in its metadata. 404 when the run's trigger is deleted.")
  )
  .add(
    HttpApiEndpoint.patch("rescheduleRun", "/runs/:id")
      .annotate(OpenApi.Summary, "Reschedule a run")
      .setPath(RunPath)
      .setPayload(RescheduleRun)
      .addSuccess(Run)
      .addError(ValidationError.wire)
      .addError(NotFound.wire)
      .addError(Forbidden.wire)
      .addError(Conflict.wire)
      .annotate(OpenApi.Description,
        "operator or higher. Moves a run that is not placed yet (`queued`, no worker) to a new `runAt` " +
          "(`delaySeconds: 0`: now, the dashboard's \"start now\"); its time-to-live moves with it. " +
          "A run already placed or ended is 409.")
  )
  .add(
    HttpApiEndpoint.get("getRun", "/runs/:id")
      .annotate(OpenApi.Summary, "Get a run")
      .annotate(OpenApi.Description,
        "viewer or higher. The run object plus `triggerName`, `retryOfRunId` and `retriedByRunId` (the run this one " +
          "retried, the retry it spawned; null when none), `delivery` (the latest webhook delivery record, or null) and " +
          "`cancelRequestedAt` (null unless a cancel was requested).")
      .setPath(RunPath)
      .addSuccess(RunDetail)
      .addError(NotFound.wire)
      .addError(Forbidden.wire)
  )
  .add(
    HttpApiEndpoint.get("runEvents", "/runs/:id/events")
      .annotate(OpenApi.Summary, "A run's timeline")
      .annotate(OpenApi.Description,
        "viewer or higher. Every transition of the run in order, each with its `status` after the step, when (`at`), " +
          "the worker concerned and the `reason`: requested, assigned, claimed, started, completed, claim_timeout, " +
          "heartbeat_timeout, execution_timeout, cancelled, worker_revoked or released. Stored with the run, so it survives restarts.")
      .setPath(RunPath)
      .addSuccess(Schema.Struct({ items: Schema.Array(RunEvent) }))
      .addError(NotFound.wire)
      .addError(Forbidden.wire)
  )
  .middleware(Authentication)
{}
