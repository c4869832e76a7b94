import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Settings from "./Settings.js"

/**
 * Every tunable of the service in one place: the scheduler's timeouts and
 * batch sizes, webhook delivery's concurrency and lease, the shutdown
 * bounds. Shaped like `@effect/cluster`'s `ShardingConfig`: `defaults`,
 * `layer(options)` for a program that sets them in code (tests, embedding),
 * `layerFromEnv(options)` for the service, which reads each from its
 * environment variable (docs/configuration.md) and falls back to `defaults`.
 */
export interface TuningShape {
  /** An assigned run not claimed within this many seconds goes back to `queued`. */
  readonly claimTimeoutSeconds: number
  /** A worker not seen for this many seconds is offline: it gets no runs and its assigned runs are reassigned. */
  readonly workerOfflineAfterSeconds: number
  /**
   * A cancel of a claimed or running run leaves it with its worker at most
   * this many seconds (to stop and complete it); then it ends `cancelled` anyway.
   */
  readonly cancelGraceSeconds: number
  /**
   * New runs go to workers seen within this many seconds (a poll waiting on
   * any instance keeps its worker seen); the other online workers get runs
   * only when none of these has room. A worker that registered and stopped
   * polling so keeps no run waiting until it goes offline.
   */
  readonly activeWorkerSeconds: number
  /**
   * At most this many assigned-but-unclaimed runs wait on one worker. A deeper
   * backlog stays `queued` and is handed out as workers poll, so no run sits
   * on a busy worker until its claim timeout.
   */
  readonly maxAssignedPerWorker: number
  /** At most this many runs are assigned or picked up per statement. */
  readonly batchSize: number
  /**
   * How often each instance sweeps the database for work another instance
   * (or a previous process) left: deadlines coming due, queued runs, runs of
   * offline workers. While passes find nothing the pause doubles, up to 4×
   * this and never past `sweepHorizonMillis` minus this.
   */
  readonly sweepIntervalMillis: number
  /** The sweep picks up runs whose deadline falls within this window. */
  readonly sweepHorizonMillis: number
  /** Outbound webhook attempts in flight at once, per instance. */
  readonly webhookConcurrency: number
  /**
   * How long an instance holds a pending delivery without news before another
   * instance takes it over (after a crash); longer than one attempt (10 s).
   */
  readonly webhookLeaseSeconds: number
  /**
   * How long an instance holds a bulk action it works through without
   * recording a batch; after a crash, another instance (or the restarted one)
   * resumes it once this has passed.
   */
  readonly bulkActionLeaseSeconds: number
  /** After SIGTERM, keep serving this long with readiness at 503 (so load balancers stop sending) before the port closes. */
  readonly shutdownDelaySeconds: number
  /** After the delay, a graceful shutdown waits at most this long for work in flight before the process exits. */
  readonly shutdownTimeoutSeconds: number
  /**
   * A run's log is kept up to this many bytes (its lines as a text file, each
   * with its newline); past it one marker line says how much was dropped.
   */
  readonly runLogMaxBytes: number
}

export class Tuning extends Context.Tag("Config/Tuning")<Tuning, TuningShape>() {}

export const defaults: TuningShape = {
  claimTimeoutSeconds: 30,
  workerOfflineAfterSeconds: 30,
  cancelGraceSeconds: 30,
  activeWorkerSeconds: 5,
  // One poll page.
  maxAssignedPerWorker: 100,
  batchSize: 500,
  sweepIntervalMillis: 1000,
  sweepHorizonMillis: 5000,
  webhookConcurrency: 64,
  webhookLeaseSeconds: 30,
  bulkActionLeaseSeconds: 15,
  shutdownDelaySeconds: 0,
  shutdownTimeoutSeconds: 10,
  runLogMaxBytes: 16 * 1024 * 1024
}

const whole = (name: string, fallback: number, description: string, minimum: number) =>
  Settings.wholeNumber(name, {
    min: minimum,
    unit: name.endsWith("_SECONDS") ? "seconds" : name.endsWith("_MILLIS") ? "milliseconds" : undefined
  }).pipe(
    Config.withDefault(fallback),
    Config.withDescription(description)
  )

/** The environment variables, each with its default and description (the configuration table in docs/configuration.md). */
export const config: Config.Config<TuningShape> = Config.all({
  claimTimeoutSeconds: whole("CLAIM_TIMEOUT_SECONDS", defaults.claimTimeoutSeconds, "an assigned run not claimed in time goes back to queued", 1),
  workerOfflineAfterSeconds: whole("WORKER_OFFLINE_AFTER_SECONDS", defaults.workerOfflineAfterSeconds, "a worker not seen for this long is offline", 1),
  cancelGraceSeconds: whole(
    "CANCEL_GRACE_SECONDS",
    defaults.cancelGraceSeconds,
    "seconds a cancelled claimed or running run stays with its worker",
    0
  ),
  activeWorkerSeconds: whole("ACTIVE_WORKER_SECONDS", defaults.activeWorkerSeconds, "new runs go first to workers seen this recently", 1),
  maxAssignedPerWorker: whole(
    "MAX_ASSIGNED_PER_WORKER",
    defaults.maxAssignedPerWorker,
    "assigned-but-unclaimed runs waiting on one worker at most",
    1
  ),
  batchSize: whole("ASSIGN_BATCH_SIZE", defaults.batchSize, "runs assigned or picked up per statement at most", 1),
  sweepIntervalMillis: whole("SWEEP_INTERVAL_MILLIS", defaults.sweepIntervalMillis, "how often each instance sweeps for work left behind", 10),
  sweepHorizonMillis: whole("SWEEP_HORIZON_MILLIS", defaults.sweepHorizonMillis, "the sweep picks up deadlines falling due within this window", 0),
  webhookConcurrency: whole("WEBHOOK_CONCURRENCY", defaults.webhookConcurrency, "outbound webhook attempts in flight at once, per instance", 1),
  webhookLeaseSeconds: whole("WEBHOOK_LEASE_SECONDS", defaults.webhookLeaseSeconds, "how long an instance holds a pending delivery", 1),
  bulkActionLeaseSeconds: whole(
    "BULK_ACTION_LEASE_SECONDS",
    defaults.bulkActionLeaseSeconds,
    "how long an instance holds a bulk action between batches; another resumes it after a crash once this has passed",
    1
  ),
  shutdownDelaySeconds: whole(
    "SHUTDOWN_DELAY_SECONDS",
    defaults.shutdownDelaySeconds,
    "after SIGTERM, keep serving this long with readiness at 503 before closing the port",
    0
  ),
  shutdownTimeoutSeconds: whole("SHUTDOWN_TIMEOUT_SECONDS", defaults.shutdownTimeoutSeconds, "on SIGTERM, exit after at most this long", 0),
  runLogMaxBytes: whole("RUN_LOG_MAX_BYTES", defaults.runLogMaxBytes, "bytes of log kept per run; past it one marker line says how much was dropped", 1024)
})

/** `defaults` with the given options. */
export const layer = (options: Partial<TuningShape> = {}): Layer.Layer<Tuning> =>
  Layer.succeed(Tuning, { ...defaults, ...options })

/** From the environment (`ConfigProvider`), then the given options over it. */
export const layerFromEnv = (options: Partial<TuningShape> = {}): Layer.Layer<Tuning, import("effect/ConfigError").ConfigError> =>
  Layer.effect(Tuning, Effect.map(config, (fromEnv) => ({ ...fromEnv, ...options })))
