import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { AuditActor } from "../Audit/AuditLog.js"
import type { FaultClass, PolledRow, RunRow, RunStatus } from "../Contract/Domain/Run.js"
import type { PlacementRules } from "./Placement.js"

/**
 * The run store: every statement that creates or moves a run, each an
 * operation that runs it and answers its rows (the statements are in
 * `SqlRunStore`). Every transition is one conditional UPDATE ... RETURNING:
 * the row count decides, so a transition from the wrong state changes
 * nothing, and with two instances each happens exactly once. A deadline that
 * has passed counts as a wrong state: the supervisor is about to time the run
 * out, and a late heartbeat must not resurrect it. What follows a statement
 * (the live feed, the terminal-run stream, wake-ups, metrics) is the
 * scheduler's. No other module writes to `runs`.
 */
export class RunStore extends Context.Tag("RunStore")<RunStore, RunStore.Service>() {}

export declare namespace RunStore {
  /** What the run store offers; one line per operation, the details on `SqlRunStore`'s statements. */
  export interface Service {
    // Creation
    /** The trigger's input rules, as of its current version; undefined when it does not exist or is deleted. */
    readonly inputRules: (triggerId: string) => Effect.Effect<InputRules | undefined>
    /** New queued runs of one trigger, one per request, with idempotency, audit and (optionally) placement, in one statement. */
    readonly createMany: (
      triggerId: string,
      requests: ReadonlyArray<CreateRequest>,
      options?: CreateOptions
    ) => Effect.Effect<ReadonlyArray<Created | undefined>>

    // Assignment and release
    /** Assigns queued runs (of one environment, or of all) by the placement rule; answers the runs assigned, with their workers. */
    readonly assignQueued: (environmentId?: string) => Effect.Effect<ReadonlyArray<Assigned>>
    /** Claim timeout: an assigned run past its deadline back to `queued`; answers its environment (none when it moved on). */
    readonly releaseExpired: (runId: string) => Effect.Effect<ReadonlyArray<{ readonly environment_id: string }>>
    /** Runs assigned to workers that went offline back to `queued`; answers them. */
    readonly releaseOffline: Effect.Effect<ReadonlyArray<{ readonly id: string; readonly environment_id: string }>>
    /** A revoked worker's assigned runs back to `queued`; answers them. */
    readonly releaseWorker: (workerId: string) => Effect.Effect<ReadonlyArray<{ readonly id: string; readonly environment_id: string }>>
    /** A run claimed for a poll that went away, back to `assigned` to that worker; answers its new claim deadline (none when it moved on). */
    readonly unclaim: (
      runId: string,
      workerId: string
    ) => Effect.Effect<ReadonlyArray<{ readonly deadline_at: Date; readonly environment_id: string }>>

    // A worker's steps
    /** Claims (with `start`, also starts) up to `max` of the worker's assigned runs in one statement. */
    readonly claimMany: (workerId: string, max: number, start?: boolean) => Effect.Effect<ReadonlyArray<PolledRow>>
    /** What the worker channel pushes next, in one statement: up to `max` assigned runs claimed and started, and the worker's cancel requests. */
    readonly claimForPush: (
      workerId: string,
      max: number
    ) => Effect.Effect<{ readonly runs: ReadonlyArray<PolledRow>; readonly cancelRequested: ReadonlyArray<string> }>
    /** The worker's assigned, not yet claimed runs (what a poll hands out). */
    readonly assignedTo: (workerId: string, max: number) => Effect.Effect<ReadonlyArray<PolledRow>>
    /** Claims, starts or heartbeats several of the worker's runs in one statement; answers the runs it moved. */
    readonly stepMany: (workerId: string, runIds: ReadonlyArray<string>, step: MovingStep) => Effect.Effect<ReadonlyArray<RunRow>>
    /** The status of each of `runIds` the worker holds (to say why a step left it where it was). */
    readonly statusesOf: (
      workerId: string,
      runIds: ReadonlyArray<string>
    ) => Effect.Effect<ReadonlyArray<{ readonly id: string; readonly status: RunStatus }>>

    // Endings (each through the terminal statement: retry and webhook outbox row written with it)
    /** Completes several of the worker's runs in one statement; answers the runs it ended. */
    readonly completeMany: (
      workerId: string,
      items: ReadonlyArray<{ readonly runId: string; readonly completion: Completion }>,
      lease: Lease
    ) => Effect.Effect<Ended>
    /** Heartbeat or execution deadline passed: the run `timed_out` (or `cancelled` after a cancel request), with its follow-up. */
    readonly timeOut: (runId: string, at: number | undefined, lease: Lease) => Effect.Effect<Ended>
    /** `timeOut` for runs with no follow-up (no retry, no webhook), several in one statement; answers the runs it ended. */
    readonly timeOutMany: (items: ReadonlyArray<{ readonly runId: string; readonly at: number }>) => Effect.Effect<ReadonlyArray<RunRow>>
    /** The ids of the worker's claimed and running runs: what its revocation times out. */
    readonly heldBy: (workerId: string) => Effect.Effect<ReadonlyArray<string>>
    /** The revoked worker's claimed and running runs (`runIds`) end `timed_out` (faultClass `infra`) at once. */
    readonly timeOutRevoked: (workerId: string, runIds: ReadonlyArray<string>, lease: Lease) => Effect.Effect<Ended>

    // Cancel requests
    /**
     * Cancels a run: ended at once while no worker holds it, else requested (deadline moved to the grace period's end);
     * audited, with `bulkActionId` in the record's metadata when a bulk action cancels it.
     */
    readonly cancel: (
      runId: string,
      environmentId: string,
      actor: { readonly type: string; readonly id: string | null },
      lease: Lease,
      bulkActionId?: string | undefined
    ) => Effect.Effect<Ended>
    /** The ids of the worker's runs whose cancel was requested and that have not ended. */
    readonly cancelRequestedOf: (workerId: string) => Effect.Effect<ReadonlyArray<string>>

    // Runs waiting for a moment (a delay, a time-to-live)
    /** Delayed runs whose `available_at` has come, made ready for placement (at most `batchSize`); answers them. */
    readonly promoteDue: (now: string) => Effect.Effect<ReadonlyArray<{ readonly id: string; readonly environment_id: string }>>
    /** Runs not claimed by their `expires_at` end `expired` (at most `batchSize`), with their webhook; never retried. */
    readonly expireDue: (now: string, lease: Lease) => Effect.Effect<Ended>
    /** The next moment a delayed run becomes ready or an unclaimed run expires; undefined when none waits. */
    readonly nextDue: Effect.Effect<Date | undefined>
    /** Moves a run not placed yet to `availableAt` (ISO), its time-to-live with it; audited. Empty when not queued there. */
    readonly reschedule: (
      runId: string,
      environmentId: string,
      availableAt: string,
      actor: { readonly type: string; readonly id: string | null }
    ) => Effect.Effect<ReadonlyArray<RunRow>>

    // Restart
    /** Moves every active run's deadline that fell in (`since`, `now`] to `now` plus its window; answers how many it moved. */
    readonly graceDeadlines: (since: string | undefined, now: string) => Effect.Effect<number>
  }
}

/** The options of `RunStore.createMany`. */
export interface CreateOptions {
  /** Only a trigger of this environment (the caller's, when it is known without a lookup). */
  readonly environmentId?: string | undefined
  /** Assign the runs at once where the scheduler's rules allow. */
  readonly placement?: Placement | undefined
  /** Only if the trigger's schedule moves on from this tick (see `Advance`). */
  readonly advance?: Advance | undefined
  /**
   * Only if the trigger is still as its `InputRules` were read (their
   * `version`): the inputs were checked against those rules, so a trigger
   * changed since creates nothing here (as a gone one: the caller re-reads).
   */
  readonly inputVersion?: string | undefined
}

/** The Postgres channel a free outbox row is announced on; delivery loops listen to it. */
export const outboxChannel = "webhook_outbox"

/** The outcome of a terminal transition: the ended run and the retry it spawned, if any. */
export interface Terminal {
  readonly run: RunRow
  readonly retry: RunRow | undefined
}

/**
 * Whom the statement's outbox rows are leased to: a delivery loop of this
 * instance (`owner`, for `leaseMillis`), or nobody (`owner` null: the rows
 * are inserted free and announced on `outboxChannel`).
 */
export interface Lease {
  readonly owner: string | null
  readonly leaseMillis: number
}

/** What a terminal statement answers: the runs it ended, and those whose outbox row it inserted leased (in that order). */
export interface Ended {
  readonly ended: ReadonlyArray<Terminal>
  readonly leased: ReadonlyArray<RunRow>
}

export interface Created {
  /** The run as requested (a new run reads `queued`, as the contract answers it). */
  readonly run: RunRow
  /** False when an earlier request with the same Idempotency-Key made the run. */
  readonly created: boolean
  /** Where the new run went in the same statement, when it was assigned at once. */
  readonly assigned?: {
    readonly workerId: string
    readonly deadlineAt: Date
    /** Claimed (for `Placement.startFor`'s, also started) outright for one of `Placement.claimFor`'s polls: the row to hand it. */
    readonly claimed: PolledRow | undefined
  } | undefined
}

/** One run request: its input (the trigger's when undefined), Idempotency-Key and who asked. */
export interface CreateRequest {
  readonly input: { readonly value: unknown } | undefined
  readonly idempotencyKey: string | undefined
  readonly actor: AuditActor
  /** The schedule tick (epoch ms) this run is for; a trigger has at most one run per tick. */
  readonly scheduledFor?: number | undefined
  /** The run this one replays. */
  readonly replayOfRunId?: string | undefined
  /** The request's tags; the run carries the trigger's default tags first, then these (each once). */
  readonly tags?: ReadonlyArray<string> | undefined
  /** The run's concurrency key (undefined: none; runs without one share a key). */
  readonly concurrencyKey?: string | undefined
  /** Not placed before this moment (epoch ms): a delay or a `runAt`. */
  readonly availableAt?: number | undefined
  /** Seconds the run ranks ahead in the queue (see `Placement.queueRank`); 0 when absent. */
  readonly priority?: number | undefined
  /** Overrides the trigger's time-to-live (seconds from `availableAt`, or from now). */
  readonly ttlSeconds?: number | undefined
}

/**
 * A schedule tick's firing: the statement creates its run only if it moves
 * the trigger's `next_run_at` from `from` (the value the scheduler read) to
 * `to` (null: no further tick), so of any number of instances firing the same
 * tick exactly one creates the run, in the statement that advances the schedule.
 */
export interface Advance {
  readonly from: number
  readonly to: number | undefined
}

/**
 * For a new run to be assigned in the statement that creates it, by the
 * placement rule (`RunStore/Placement`), and only when nothing older is queued
 * in its environment, so no run jumps the queue.
 */
export interface Placement extends PlacementRules {
  readonly claimTimeoutSeconds: number
  /** The channel that wakes long-polling workers on every instance. */
  readonly channel: string
  /**
   * Workers with a `claim=true` poll waiting on this instance: a run placed
   * on one of them is claimed in the same statement, to be handed to the poll.
   */
  readonly claimFor?: ReadonlyArray<string>
  /**
   * Of `claimFor`, the workers whose poll takes runs started (`start=true`
   * polls, the worker channel): a run placed on one is claimed and started in
   * the same statement, so handing it over needs no statement of its own.
   */
  readonly startFor?: ReadonlyArray<string>
  /** Other workers with a poll waiting on this instance: preferred among equals, as `claimFor`'s are. */
  readonly waiting?: ReadonlyArray<string>
}

/**
 * What a run request of a trigger is checked against before anything is
 * stored: the trigger's default input and input schema, as of `version`.
 */
export interface InputRules {
  readonly environmentId: string
  /** The trigger's `updated_at` in microseconds, as text: any change of the trigger changes it. */
  readonly version: string
  /** The input of a run requested without one (null: none). */
  readonly input: unknown
  /** A JSON Schema, or null when the trigger declares none. */
  readonly inputSchema: unknown
  /** The tags every run of the trigger carries. */
  readonly defaultTags: ReadonlyArray<string>
  /** The top-level input field a run's concurrency key is read from when its request gives none (null: none). */
  readonly keyFrom: string | null
}

/** Postgres channel carrying the id of a worker that was just given runs (its waiting polls listen, see `Scheduler/Dispatch`). */
export const assignedChannel = "pts_run_assigned"

/** A run that was just given a claim deadline, for the supervisor. */
export interface Deadline {
  readonly id: string
  readonly environment_id: string
  readonly deadline_at: Date
}

/** A run the assignment pass just assigned, and to which worker. */
export interface Assigned extends Deadline {
  readonly worker_id: string
}

/** A worker's step that moves a run without ending it. */
export type MovingStep = "claim" | "start" | "heartbeat"

export interface Completion {
  readonly status: "succeeded" | "failed"
  readonly shortMessage: string | null
  readonly errorMessage: string | null
  readonly costUsd: string | null
  readonly faultClass: FaultClass
  /** The structured result as JSON text (stored as jsonb); null when the worker sent none. */
  readonly output: string | null
  /** False: the worker says no retry will fix this failure, so none is made. Default true. */
  readonly retryable?: boolean | undefined
}
