import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import * as Schema from "effect/Schema"
import { WorkerAuthentication } from "../Auth/Security.js"
import { Conflict, NotFound } from "../Domain/Errors.js"
import { costPattern } from "../Domain/Decimal.js"
import { Payload } from "../Domain/Schemas.js"
import { FaultClass, Run } from "../Runs/Run.js"
import { Worker } from "../Workers/Api.js"

/** What a worker needs to know about the trigger of a run it is handed. */
export const TriggerSummary = Schema.Struct({
  id: Schema.UUID,
  name: Schema.String,
  input: Schema.Unknown,
  timeoutSeconds: Schema.Int,
  heartbeatTimeoutSeconds: Schema.Int
})

export const PolledRun = Schema.Struct({ ...Run.fields, trigger: TriggerSummary }).annotations({ identifier: "PolledRun" })

const intParam = (name: string, min: number, max: number) =>
  Schema.NumberFromString.pipe(
    Schema.int(),
    Schema.between(min, max)
  ).annotations({ message: () => `${name} must be an integer from ${min} to ${max}` })

export const PollParams = Schema.Struct({
  wait: Schema.optional(intParam("wait", 0, 30)),
  claim: Schema.optional(
    Schema.Literal("true", "false").annotations({ message: () => "claim must be true or false" })
  ),
  max: Schema.optional(intParam("max", 1, 100)),
  start: Schema.optional(
    Schema.Literal("true", "false").annotations({ message: () => "start must be true or false" })
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
  faultClass: Schema.optional(FaultClass.annotations({ message: () => "faultClass must be infra, client or none" }))
})

/** The batched complete: several runs of one worker in one call (at most 100). */
export const CompleteManyPayload = Payload({
  runs: Schema.Array(Schema.Struct({ runId: Schema.String, ...CompletePayload.fields })).pipe(
    Schema.minItems(1),
    Schema.maxItems(100)
  ).annotations({ message: () => "runs must be 1 to 100 completions, each {runId, status, stdout?, stderr?, costUsd?, faultClass?}" })
})

export const RejectedRun = Schema.Struct({
  runId: Schema.String,
  status: Schema.Literal(404, 409),
  error: Schema.String
}).annotations({ identifier: "RejectedRun" })

const RunResponse = Schema.Struct({ run: Run })
const WorkerPath = Schema.Struct({ id: Schema.String })
const RunPath = Schema.Struct({ id: Schema.String, runId: Schema.String })

/** The worker protocol, all behind a `wkt_` bearer token. */
export class WorkerApi extends HttpApiGroup.make("workerProtocol")
  .add(
    HttpApiEndpoint.get("me", "/workers/me")
      .addSuccess(Worker)
      .addError(NotFound)
      .annotate(OpenApi.Description, "The worker this `wkt_` token belongs to, so an agent given only its token can find its id.")
  )
  .add(
    HttpApiEndpoint.get("poll", "/workers/:id/poll")
      .setPath(WorkerPath)
      .setUrlParams(PollParams)
      .addSuccess(Schema.Struct({ runs: Schema.Array(PolledRun) }))
      .addError(NotFound)
      .annotate(OpenApi.Description,
        "Runs assigned to this worker and not yet claimed. `wait` (0..30 s) long-polls until one is assigned; " +
          "`claim=true&max=K` claims up to K of them in the same call; `&start=true` also starts them " +
          "(they come back `running`, as after `start`).")
  )
  .add(
    HttpApiEndpoint.post("claim", "/workers/:id/runs/:runId/claim")
      .setPath(RunPath)
      .addSuccess(RunResponse)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Description, "assigned → claimed; starts the heartbeat deadline.")
  )
  .add(
    HttpApiEndpoint.post("start", "/workers/:id/runs/:runId/start")
      .setPath(RunPath)
      .addSuccess(RunResponse)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Description, "claimed → running; starts the execution deadline (timeoutSeconds).")
  )
  .add(
    HttpApiEndpoint.post("heartbeat", "/workers/:id/runs/:runId/heartbeat")
      .setPath(RunPath)
      .addSuccess(RunResponse)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Description, "Extends the heartbeat deadline of a claimed or running run; answers the run.")
  )
  .add(
    HttpApiEndpoint.post("complete", "/workers/:id/runs/:runId/complete")
      .setPath(RunPath)
      .setPayload(CompletePayload)
      .addSuccess(RunResponse)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Description, "claimed or running → succeeded | failed. Never waits on webhook delivery.")
  )
  .add(
    HttpApiEndpoint.post("completeMany", "/workers/:id/runs/complete")
      .setPath(WorkerPath)
      .setPayload(CompleteManyPayload)
      .addSuccess(Schema.Struct({ runs: Schema.Array(Run), rejected: Schema.Array(RejectedRun) }))
      .addError(NotFound)
      .annotate(OpenApi.Description,
        "Extension for fast workers: completes up to 100 of this worker's runs in one call, each as `complete` would. " +
          "`runs` answers the runs completed; `rejected` each run that was not, with the status `complete` would have " +
          "answered (404 not this worker's run, 409 wrong state) and why. A run named twice is a 400.")
  )
  .middleware(WorkerAuthentication)
{}
