import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AppConfig } from "../Config/AppConfig.js"
import { tunableDefaults } from "../Config/Defaults.js"

/**
 * Tuning of the scheduler core. An embedding program provides it with
 * `layer` (derived from `AppConfig`) or `layerWith(overrides)`; every field has
 * a documented default in `defaults`.
 */
export interface SchedulerConfigShape {
  /** An assigned run not claimed within this many seconds goes back to `queued`. Default 30 (`CLAIM_TIMEOUT_SECONDS`). */
  readonly claimTimeoutSeconds: number
  /** A worker not seen for this many seconds is offline: it gets no runs and its assigned runs are reassigned. Default 30. */
  readonly workerOfflineAfterSeconds: number
  /**
   * How often each instance sweeps the database for work another instance
   * (or a previous process) left: deadlines coming due, queued runs, runs of
   * offline workers. Default 1000 ms.
   */
  readonly sweepIntervalMillis: number
  /** The sweep picks up runs whose deadline falls within this window. Default 5000 ms. */
  readonly sweepHorizonMillis: number
  /** At most this many runs are assigned or picked up per statement. Default 500. */
  readonly batchSize: number
  /**
   * At most this many assigned-but-unclaimed runs wait on one worker. A deeper
   * backlog stays `queued` and is handed out as workers poll, so no run sits
   * on a busy worker until its claim timeout. Default 100 (one poll page).
   */
  readonly maxAssignedPerWorker: number
  /**
   * New runs go to workers seen within this many seconds (a poll waiting on
   * any instance keeps its worker seen); the other online workers get runs
   * only when none of these has room. A worker that registered and stopped
   * polling so keeps no run waiting until it goes offline. Default 5.
   */
  readonly activeWorkerSeconds: number
  /**
   * A cancel of a claimed or running run leaves it with its worker at most
   * this many seconds (to stop and complete it); then it ends `cancelled`
   * anyway. Default 30 (`CANCEL_GRACE_SECONDS`).
   */
  readonly cancelGraceSeconds: number
}

export class SchedulerConfig extends Context.Tag("Scheduler/Config")<SchedulerConfig, SchedulerConfigShape>() {
  static readonly defaults: SchedulerConfigShape = {
    claimTimeoutSeconds: tunableDefaults.claimTimeoutSeconds,
    workerOfflineAfterSeconds: tunableDefaults.workerOfflineAfterSeconds,
    sweepIntervalMillis: 1000,
    sweepHorizonMillis: 5000,
    batchSize: 500,
    maxAssignedPerWorker: 100,
    activeWorkerSeconds: 5,
    cancelGraceSeconds: tunableDefaults.cancelGraceSeconds
  }
}

/** The defaults with the given overrides. */
export const layerWith = (overrides: Partial<SchedulerConfigShape> = {}): Layer.Layer<SchedulerConfig> =>
  Layer.succeed(SchedulerConfig, { ...SchedulerConfig.defaults, ...overrides })

/** Claim timeout, offline threshold and cancel grace from the service's `AppConfig`, the rest default. */
export const layer: Layer.Layer<SchedulerConfig, never, AppConfig> = Layer.effect(
  SchedulerConfig,
  Effect.map(AppConfig, (config) => ({
    ...SchedulerConfig.defaults,
    claimTimeoutSeconds: config.claimTimeoutSeconds,
    workerOfflineAfterSeconds: config.workerOfflineAfterSeconds,
    cancelGraceSeconds: config.cancelGraceSeconds
  }))
)
