import * as Rpc from "@effect/rpc/Rpc"
import * as RpcGroup from "@effect/rpc/RpcGroup"
import * as RpcSerialization from "@effect/rpc/RpcSerialization"
import * as Schema from "effect/Schema"
import { Conflict, InternalError, NotFound, ServiceUnavailable, ValidationError } from "./Domain/ApiErrors.js"
import { AppendLogsPayload, AppendLogsResult } from "./RunLogsApi.js"
import { Run } from "./Domain/Run.js"
import { CompleteManyPayload, PolledRun, RejectedRun } from "./WorkerProtocolApi.js"

/**
 * The streaming worker channel: one WebSocket per worker, carrying the same
 * protocol as the REST calls (`Contract/WorkerProtocolApi`). Contract side only: the
 * worker SDK imports it.
 */

/** Where the channel is served (a WebSocket upgrade with the worker's `wkt_` bearer token). */
export const channelPath = "/api/v1/workers/me/channel"

/** Response header of `GET /api/v1/workers/me` naming the channel's path when this service offers it. */
export const channelHeader = "x-worker-channel"

/** The most runs one request names (as `POST /workers/{id}/runs/complete`). */
export const maxBatch = 100

const Slots = Schema.Int.pipe(Schema.between(0, maxBatch))

/** One push: runs handed to the worker (claimed and started) and the ids whose cancel was requested since the last push. */
export const ChannelEvent = Schema.Struct({
  runs: Schema.Array(PolledRun),
  cancelRequested: Schema.Array(Schema.UUID)
}).annotations({ identifier: "ChannelEvent" })

/**
 * Per-run answer of a batched step: the runs moved, and each run refused
 * with the status and error body the REST call would have answered (404 not
 * this worker's run, 409 wrong state).
 */
export const StepAnswer = Schema.Struct({
  runs: Schema.Array(Run),
  rejected: Schema.Array(RejectedRun),
  /**
   * The slots a `Complete` granted with it (its `slots`). Absent from a
   * service that does not grant them so: the worker then gives them back with `Slots`.
   */
  slotsGranted: Schema.optional(Slots)
}).annotations({ identifier: "StepAnswer" })

/**
 * What any call may fail with when the service cannot answer it: the database
 * unreachable (`ServiceUnavailable`, as REST's 503) or something unexpected
 * (`InternalError`, as REST's 500; the cause is only logged on the service).
 * Both are worth retrying; the service never answers a call with a defect.
 */
export const ChannelFailure = Schema.Union(ServiceUnavailable, InternalError)

const RunIds = Schema.Struct({ runIds: Schema.Array(Schema.String).pipe(Schema.minItems(1), Schema.maxItems(maxBatch)) })

export class WorkerRpcs extends RpcGroup.make(
  /**
   * The worker's runs, pushed as they are handed to it: each claimed and
   * started (as a `claim=true&start=true` poll), at most `slots` of them
   * until the worker grants more with `Slots`. Also pushes cancel requests.
   */
  Rpc.make("Runs", { payload: { slots: Slots }, success: ChannelEvent, error: ChannelFailure, stream: true }),
  /** Grants `slots` more runs (the worker's slots that came free). */
  Rpc.make("Slots", { payload: { slots: Slots }, error: ChannelFailure }),
  /** claimed → running, per run (as `POST .../runs/{runId}/start`). */
  Rpc.make("Start", { payload: RunIds, success: StepAnswer, error: ChannelFailure }),
  /** Extends the heartbeat deadline, per run (as `POST .../runs/{runId}/heartbeat`). */
  Rpc.make("Heartbeat", { payload: RunIds, success: StepAnswer, error: ChannelFailure }),
  /**
   * claimed or running → succeeded | failed, per run (as `POST /workers/{id}/runs/complete`).
   * `slots`: slots granted with it once it is answered (as `Slots`), so a worker
   * gives back the slots of the runs it completes without a message of their own.
   */
  Rpc.make("Complete", {
    payload: { ...CompleteManyPayload.fields, slots: Schema.optional(Slots) },
    success: StepAnswer,
    error: Schema.Union(ValidationError, ServiceUnavailable, InternalError)
  }),
  /**
   * A batch of log lines of one of the worker's runs (as `POST .../runs/{runId}/logs`):
   * up to 1,000 lines, numbered by `sequence` so a resend is stored once.
   */
  Rpc.make("Logs", {
    payload: { runId: Schema.String, ...AppendLogsPayload.fields },
    success: AppendLogsResult,
    error: Schema.Union(NotFound, Conflict, ServiceUnavailable, InternalError)
  })
) {}

/** How the channel's messages are encoded: one JSON message per WebSocket frame (both sides use this). */
export const serialization = RpcSerialization.layerJson
