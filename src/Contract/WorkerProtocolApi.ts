import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { WorkerAuthentication } from "./Security.js"
import { Conflict, NotFound, Unauthorized } from "./Domain/ApiErrors.js"
import { pathId } from "./Domain/Uuids.js"
import { costPattern } from "./Domain/Decimal.js"
import { InputValue, IntParam, Payload } from "./Domain/Schemas.js"
import { FaultClass, Run, RunOutput } from "./Domain/Run.js"
import { Worker } from "./WorkersApi.js"

/** What a worker needs to know about the trigger of a run it is handed. */
export const TriggerSummary = Schema.Struct({
  id: Schema.UUID,
  name: Schema.String,
  input: InputValue,
  /**
   * The trigger's command: what the worker executes for the run (the
   * pipeline-worker agent, with `/bin/sh -c`); null when the trigger has none.
   * The run's `input` is data for it, never something to execute.
   */
  // Optional on the wire only so that a newer worker still reads an older service's runs (as having no command).
  command: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  timeoutSeconds: Schema.Int,
  heartbeatTimeoutSeconds: Schema.Int
})

export const PolledRun = Schema.Struct({ ...Run.fields, trigger: TriggerSummary }).annotations({ identifier: "PolledRun" })

export const PollParams = Schema.Struct({
  wait: Schema.optional(IntParam("wait", {
    min: 0,
    max: 30,
    default: 0,
    description: "Seconds to wait for a run when none is assigned (long poll)."
  })),
  claim: Schema.optional(
    Schema.Literal("true", "false").annotations({
      message: () => "claim must be true or false",
      description: "Extension: claim the runs handed out (they come back `claimed`), saving a claim call per run.",
      default: "false"
    })
  ),
  max: Schema.optional(IntParam("max", {
    min: 1,
    max: 100,
    default: 1,
    description: "With claim=true: claim up to this many runs in one poll."
  })),
  start: Schema.optional(
    Schema.Literal("true", "false").annotations({
      message: () => "start must be true or false",
      description: "With claim=true: also start the claimed runs (they come back `running`).",
      default: "false"
    })
  )
}).annotations({ parseOptions: { errors: "all" } })

export const CompletePayload = Payload({
  status: Schema.Literal("succeeded", "failed").annotations({ message: () => "status must be succeeded or failed" }),
  stdout: Schema.optional(Schema.String),
  stderr: Schema.optional(Schema.String),
  costUsd: Schema.optional(
    Schema.String.pipe(Schema.pattern(costPattern)).annotations({
      message: () => "costUsd must be a decimal string with up to 12 integer and 8 fraction digits"
    })
  ),
  faultClass: Schema.optional(FaultClass.annotations({ message: () => "faultClass must be infra, client or none" })),
  output: Schema.optional(RunOutput),
  retryable: Schema.optional(Schema.Boolean.annotations({
    message: () => "retryable must be true or false",
    description: "false: no retry will fix this failure, so the run is not retried whatever the trigger's maxRetries. Default true."
  }))
})

/** The batched complete: several runs of one worker in one call (at most 100). */
export const CompleteManyPayload = Payload({
  runs: Schema.Array(Schema.Struct({ runId: Schema.String, ...CompletePayload.fields })).pipe(
    Schema.minItems(1),
    Schema.maxItems(100)
  ).annotations({ message: () => "runs must be 1 to 100 completions, each {runId, status, stdout?, stderr?, costUsd?, faultClass?, output?, retryable?}" })
})

export const RejectedRun = Schema.Struct({
  runId: Schema.String,
  status: Schema.Literal(404, 409),
  error: Schema.String
}).annotations({ identifier: "RejectedRun" })

const RunResponse = Schema.Struct({ run: Run })
// Another worker's id (or no id at all) is "worker not found": a token sees only its own worker.
const workerId = pathId("worker")
const WorkerPath = Schema.Struct({ id: workerId })
const RunPath = Schema.Struct({ id: workerId, runId: pathId("run") })

/** The worker protocol, all behind a `wkt_` bearer token. */
export class WorkerApi extends HttpApiGroup.make("workerProtocol")
  .add(
    HttpApiEndpoint.get("me", "/workers/me")
      .annotate(OpenApi.Summary, "This worker")
      .addSuccess(Worker)
      .addError(Unauthorized.wire)
      .annotate(
        OpenApi.Description,
        "The worker this `wkt_` token belongs to, so an agent given only its token can find its id " +
          "(401 once the worker is revoked, as every worker call answers). " +
          "Where the service offers the streaming worker channel, the answer carries an `x-worker-channel` header " +
          "naming its WebSocket path (`/api/v1/workers/me/channel`, same bearer token): runs are pushed to the worker " +
          "claimed and started, and its steps go over the connection batched. It is not an HTTP endpoint, so this document does not list it."
      )
  )
  .add(
    HttpApiEndpoint.get("poll", "/workers/:id/poll")
      .annotate(OpenApi.Summary, "Poll for runs")
      .setPath(WorkerPath)
      .setUrlParams(PollParams)
      .addSuccess(Schema.Struct({
        runs: Schema.Array(PolledRun),
        cancelRequested: Schema.Array(Schema.UUID).annotations({
          description: "Ids of this worker's claimed or running runs whose cancel was requested: stop each and complete it."
        })
      }))
      .addError(NotFound.wire)
      .annotate(OpenApi.Description,
        "Runs assigned to this worker and not yet claimed. `wait` (0..30 s) long-polls until one is assigned; " +
          "`claim=true&max=K` claims up to K of them in the same call; `&start=true` also starts them " +
          "(they come back `running`, as after `start`). `cancelRequested` names the worker's runs whose cancel " +
          "was requested (`POST /runs/{id}/cancel`); such a request also ends a waiting poll at once.")
  )
  .add(
    HttpApiEndpoint.post("claim", "/workers/:id/runs/:runId/claim")
      .annotate(OpenApi.Summary, "Claim a run")
      .setPath(RunPath)
      .addSuccess(RunResponse)
      .addError(NotFound.wire)
      .addError(Conflict.wire)
      .annotate(OpenApi.Description, "assigned → claimed; starts the heartbeat deadline.")
  )
  .add(
    HttpApiEndpoint.post("start", "/workers/:id/runs/:runId/start")
      .annotate(OpenApi.Summary, "Start a run")
      .setPath(RunPath)
      .addSuccess(RunResponse)
      .addError(NotFound.wire)
      .addError(Conflict.wire)
      .annotate(OpenApi.Description, "claimed → running; starts the execution deadline (timeoutSeconds).")
  )
  .add(
    HttpApiEndpoint.post("heartbeat", "/workers/:id/runs/:runId/heartbeat")
      .annotate(OpenApi.Summary, "Heartbeat")
      .setPath(RunPath)
      .addSuccess(RunResponse)
      .addError(NotFound.wire)
      .addError(Conflict.wire)
      .annotate(OpenApi.Description, "Extends the heartbeat deadline of a claimed or running run; answers the run.")
  )
  .add(
    HttpApiEndpoint.post("complete", "/workers/:id/runs/:runId/complete")
      .annotate(OpenApi.Summary, "Complete a run")
      .setPath(RunPath)
      .setPayload(CompletePayload)
      .addSuccess(RunResponse)
      .addError(NotFound.wire)
      .addError(Conflict.wire)
      .annotate(OpenApi.Description, "claimed or running → succeeded | failed. Never waits on webhook delivery.")
  )
  .add(
    HttpApiEndpoint.post("completeMany", "/workers/:id/runs/complete")
      .annotate(OpenApi.Summary, "Complete several runs")
      .setPath(WorkerPath)
      .setPayload(CompleteManyPayload)
      .addSuccess(Schema.Struct({ runs: Schema.Array(Run), rejected: Schema.Array(RejectedRun) }))
      .addError(NotFound.wire)
      .annotate(OpenApi.Description,
        "Extension for fast workers: completes up to 100 of this worker's runs in one call, each as `complete` would. " +
          "`runs` answers the runs completed; `rejected` each run that was not, with the status `complete` would have " +
          "answered (404 not this worker's run, 409 wrong state) and why. A run named twice is a 400.")
  )
  .middleware(WorkerAuthentication)
{}
