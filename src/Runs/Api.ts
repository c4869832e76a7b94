import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import * as Schema from "effect/Schema"
import { Authentication } from "../Auth/Security.js"
import { Conflict, Forbidden, NotFound } from "../Domain/Errors.js"
import { pathId } from "../Domain/Ids.js"
import { inputJsonSchema, IsoTimestamp, Limit, Page, Payload } from "../Domain/Schemas.js"
import { Run, RunStatus } from "../Domain/Run.js"
import { RunDetail, RunEvent } from "./RunDetail.js"

/** `POST /triggers/{id}/run` body; the body itself is optional. */
export const RunRequest = Payload({
  input: Schema.optional(Schema.Unknown.annotations({
    jsonSchema: { description: "The run's input; the trigger's `input` when absent. " + inputJsonSchema.description }
  }))
})

const statusFilter = RunStatus.annotations({
  message: () => "status must be one of queued, assigned, claimed, running, succeeded, failed, timed_out, cancelled"
})

export const RunListParams = Schema.Struct({
  status: Schema.optional(statusFilter),
  from: Schema.optional(IsoTimestamp),
  to: Schema.optional(IsoTimestamp),
  workerId: Schema.optional(Schema.UUID.annotations({ message: () => "workerId must be a UUID" })),
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
        "Starts a run (operator+). The body is optional; `input` defaults to the trigger's. " +
          "With an `Idempotency-Key` header, a repeat with the same key answers the first run with 200.")
  )
  .add(
    HttpApiEndpoint.get("listTriggerRuns", "/triggers/:id/runs")
      .annotate(OpenApi.Summary, "List a trigger's runs")
      .annotate(OpenApi.Description, "viewer or higher. Newest first; filter by `status` and a `from`/`to` creation window (ISO 8601).")
      .setPath(TriggerPath)
      .setUrlParams(RunListParams)
      .addSuccess(Page(Run))
      .addError(NotFound.wire)
      .addError(Forbidden.wire)
  )
  .add(
    HttpApiEndpoint.get("listEnvironmentRuns", "/environments/:envId/runs")
      .annotate(OpenApi.Summary, "List an environment's runs")
      .annotate(OpenApi.Description, "viewer or higher. Newest first; filter by `status`, `workerId` and a `from`/`to` creation window (ISO 8601).")
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
