import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as Redacted from "effect/Redacted"
import type * as Schedule from "effect/Schedule"
import type * as Schema from "effect/Schema"
import type { CompletePayload, PolledRun } from "../Contract/WorkerProtocolApi.js"
import type { WebSocketFactory } from "./Channel.js"

/** A run as the worker receives it, with its trigger's name, input and timeouts. */
export type WorkerRun = typeof PolledRun.Type

/**
 * What a handler reports for a run; sent as the `complete` call, so it is
 * the contract's `CompletePayload`: `status`, `stdout`, `stderr`, `costUsd`
 * (a decimal string, e.g. `"0.0123"`), for failed runs, `faultClass`
 * (whose fault it was; default `client`), and `output`: the run's structured
 * result, any JSON up to 1 MiB (`GET /runs/{id}` returns it); `retryable` false: no retry
 * will fix it, so the service makes none (see also `NonRetryable`).
 */
export interface RunResult extends Schema.Schema.Type<typeof CompletePayload> {}

export interface WorkerCredentials {
  readonly workerId: string
  readonly token: Redacted.Redacted<string>
}

export interface WorkerOptions<E, R> {
  /** The service's origin, e.g. `http://localhost:3000`. */
  readonly baseUrl: string
  /** A `wkt_` worker token with its worker id (from an earlier registration)... */
  readonly credentials?: WorkerCredentials | undefined
  /** ...or a `wrk_` registration token: the worker registers first. */
  readonly registrationToken?: string | Redacted.Redacted<string> | undefined
  /** The label a registering worker gets. */
  readonly label?: string | undefined
  /** Called once after registration, e.g. to keep the `wkt_` token for the next start. */
  readonly onRegistered?: ((credentials: WorkerCredentials) => Effect.Effect<void>) | undefined
  /** Runs executed at the same time. Default 1. */
  readonly concurrency?: number | undefined
  /**
   * Executes one run. Interrupted when the run's `timeoutSeconds` passes or the service ends it.
   * `RunLog` is provided to it: what it writes there (`RunLog.info`, `RunLog.error`) is the run's log,
   * streamed while it runs and sent in full before the run completes.
   */
  readonly handler: (run: WorkerRun) => Effect.Effect<RunResult, E, R>
  /** Long-poll wait, 0..30 seconds. Default 30. */
  readonly pollWaitSeconds?: number | undefined
  /**
   * The fast-worker extensions: runs are claimed and started by the poll itself
   * (`claim=true&max=K&start=true`), and completes that finish while one is in
   * flight go out together (`POST /workers/{id}/runs/complete`). Default false.
   */
  readonly claimOnPoll?: boolean | undefined
  /** Heartbeat every this fraction of the run's `heartbeatTimeoutSeconds`. Default 1/3. */
  readonly heartbeatFraction?: number | undefined
  /** On interruption, how long in-flight runs may still take before they are failed. Default 10 s. */
  readonly shutdownGracePeriod?: Duration.DurationInput | undefined
  /**
   * How runs reach the worker. `auto` (default): over the worker channel (a
   * WebSocket the service pushes runs on) when the service offers it and a
   * WebSocket is at hand, else the REST long poll. `channel` or `rest` forces one.
   */
  readonly transport?: "auto" | "channel" | "rest" | undefined
  /**
   * Opens the channel's WebSocket with the token header. Default: the
   * runtime's own WebSocket (Node 22+, Bun, Deno); Node 20 has none, so
   * without this the worker uses REST there.
   */
  readonly webSocket?: WebSocketFactory | undefined
  /** Delays between retries of transient failures. Default: exponential from 250 ms, jittered, capped at 2 s, forever. */
  readonly retrySchedule?: Schedule.Schedule<unknown, unknown> | undefined
}
