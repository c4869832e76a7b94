import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as Redacted from "effect/Redacted"
import type * as Schedule from "effect/Schedule"
import type { PolledRun } from "../WorkerProtocol/Api.js"
import type { WebSocketFactory } from "./Channel.js"

/** A run as the worker receives it, with its trigger's name, input and timeouts. */
export type WorkerRun = typeof PolledRun.Type

/** What a handler reports for a run; sent as the `complete` call. */
export interface RunResult {
  readonly status: "succeeded" | "failed"
  readonly stdout?: string | undefined
  readonly stderr?: string | undefined
  /** Decimal string, e.g. `"0.0123"`. */
  readonly costUsd?: string | undefined
  /** For failed runs: whose fault it was (default `client`). */
  readonly faultClass?: "infra" | "client" | undefined
}

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
  /** Executes one run. Interrupted when the run's `timeoutSeconds` passes or the service ends it. */
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
  /** Delays between retries of transient failures. Default: exponential from 250 ms, capped at 30 s, forever. */
  readonly retrySchedule?: Schedule.Schedule<unknown, unknown> | undefined
}
