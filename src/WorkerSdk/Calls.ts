import type * as Effect from "effect/Effect"
import type { PipelineClient } from "../Client.js"
import type { Run } from "../Contract/Domain/Run.js"
import type { AppendLogsPayload } from "../Contract/RunLogsApi.js"

/** What `complete` sends for one run (the body of `POST .../runs/{runId}/complete`). */
export type CompletePayload = Parameters<PipelineClient["workerProtocol"]["complete"]>[0]["payload"]

/**
 * The run steps a worker requests, whatever carries them (REST calls or the
 * channel). Each fails as the REST call would: `NotFound` or `Conflict` when
 * the service refuses the step, a transient error when it could not answer.
 */
export interface WorkerCalls {
  readonly claim: (runId: string) => Effect.Effect<unknown, unknown>
  readonly start: (runId: string) => Effect.Effect<unknown, unknown>
  readonly heartbeat: (runId: string) => Effect.Effect<{ readonly run: typeof Run.Type }, unknown>
  readonly complete: (runId: string, payload: CompletePayload) => Effect.Effect<unknown, unknown>
  /** Appends lines to the run's log (`POST .../runs/{runId}/logs`). */
  readonly logs: (runId: string, payload: AppendLogsPayload) => Effect.Effect<unknown, unknown>
}

/** The REST worker protocol, one call per step. */
export const rest = (client: PipelineClient, workerId: string): WorkerCalls => ({
  claim: (runId) => client.workerProtocol.claim({ path: { id: workerId, runId } }),
  start: (runId) => client.workerProtocol.start({ path: { id: workerId, runId } }),
  heartbeat: (runId) => client.workerProtocol.heartbeat({ path: { id: workerId, runId } }),
  complete: (runId, payload) => client.workerProtocol.complete({ path: { id: workerId, runId }, payload }),
  logs: (runId, payload) => client.runLogsWorker.appendLogs({ path: { id: workerId, runId }, payload })
})
