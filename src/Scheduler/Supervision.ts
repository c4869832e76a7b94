import * as SqlClient from "@effect/sql/SqlClient"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberMap from "effect/FiberMap"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as Detached from "../Concurrency/Detached.js"
import * as Grouped from "../Concurrency/Grouped.js"
import { Tuning, type TuningShape } from "../Config/Tuning.js"
import { uuidv7 } from "../Crypto/Ids.js"
import type { RunStatus } from "../Contract/Domain/Run.js"
import { nowIso, toMillis } from "../Db/Time.js"
import { type Advance, type CreateRequest, RunStore } from "../RunStore/RunStore.js"
import { Assignment, type Deadline, makeAssignmentPasses, makeRunCreation, type Requested, Wakeups } from "./Dispatch.js"
import { DueAlarm, startDueLoop } from "./Due.js"
import { RunFeed } from "./RunFeed.js"
import { type Terminal, Transitions } from "./Transitions.js"

/**
 * Supervision: every run with a deadline is watched until it leaves the
 * active states. A fiber per run (`makeDeadlineFibers`), the sweep for what
 * those fibers cannot know (`startSweep`), this instance's record and the
 * restart grace (`startServicePresence`), and a revoked worker's runs
 * (`Revocation`). `Supervisor` builds them with dispatch's passes and run
 * creation, so every run it creates is supervised from its statement on.
 */

export declare namespace Supervisor {
  /** Run supervision on this instance, and run creation (so every new run is supervised from its statement on). */
  export interface Service {
    /** Supervises the run until it leaves the active states (a no-op when a fiber here wakes no later). */
    readonly watch: (runId: string, deadlineMs: number) => Effect.Effect<void>
    /** `watch` for each run with a deadline. */
    readonly watchAll: (runs: ReadonlyArray<{ readonly id: string; readonly deadline_at: Date | null }>) => Effect.Effect<void>
    /** The run ended here: stops its fiber now. */
    readonly release: (runId: string) => Effect.Effect<void>
    /** Assigns queued runs (of one environment, or all) and supervises their claim deadlines; passes do not pile up. */
    readonly assignAndWatch: (environmentId?: string) => Effect.Effect<ReadonlyArray<Deadline>>
    /** New runs of one trigger (every front door and the schedule's ticks): inputs checked, created, placed, supervised. */
    readonly createRuns: (
      triggerId: string,
      requests: ReadonlyArray<CreateRequest>,
      options?: { readonly environmentId?: string | undefined; readonly advance?: Advance | undefined }
    ) => Effect.Effect<ReadonlyArray<Requested>>
    /** How many runs this instance supervises right now. */
    readonly size: Effect.Effect<number>
  }
}

/**
 * Run supervision on this instance: a fiber per run with a deadline
 * (`makeDeadlineFibers`), assignment passes that do not pile up
 * (`makeAssignmentPasses`), new runs dispatched and supervised from their
 * creating statement on (`makeRunCreation`), and the sweep (`startSweep`). The parts
 * are closures built once here, so the split costs nothing per call.
 */
export class Supervisor extends Effect.Service<Supervisor>()("Scheduler/Supervisor", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const config = yield* Tuning
    const assignment = yield* Assignment
    const transitions = yield* Transitions
    const wakeups = yield* Wakeups
    const feed = yield* RunFeed
    const store = yield* RunStore
    const alarm = yield* DueAlarm
    const scope = yield* Effect.scope
    // Before recovery reads the deadlines: those that passed while the service was away are moved first.
    yield* startServicePresence({ sql, store })

    // A run whose claim deadline passed, or a retry, is assigned by a pass (defined next; called only once both exist).
    const deadlines = yield* makeDeadlineFibers({ sql, assignment, transitions, requeued: (environmentId) => assignAndWatch(environmentId) })
    const { release, size, watch, watchAll } = deadlines
    const assignAndWatch = makeAssignmentPasses({ assignment, watchAll, scope })
    const createRuns = makeRunCreation({ config, store, assignment, wakeups, feed, alarm, watch, assignAndWatch })
    yield* startSweep({ sql, config, assignment, alarm, watchAll, assignAndWatch })
    yield* startDueLoop({ config, store, alarm, expireDue: transitions.expireDue, assignAndWatch })

    const service: Supervisor.Service = { watch, watchAll, release, assignAndWatch, createRuns, size }
    return service
  })
}) {}

interface DeadlineRow {
  readonly id: string
  readonly status: RunStatus
  readonly deadline_at: Date | null
  readonly follow_up: boolean
}

interface Wake {
  at: number
}

/**
 * One fiber per non-terminal run with a deadline, in a `FiberMap` keyed by run
 * id. The fiber reads the run's stored deadline, sleeps until it, re-reads it
 * (a heartbeat only moves `deadline_at`, it never touches the fiber) and, when
 * it is really due, applies the transition with a conditional UPDATE: so a
 * supervised run costs one parked fiber and one timer, and two instances
 * supervising the same run still transition it exactly once. A run whose
 * claim deadline passed goes back to the queue and `requeued` assigns it again.
 */
export const makeDeadlineFibers = (deps: {
  readonly sql: SqlClient.SqlClient
  readonly assignment: Assignment
  readonly transitions: Transitions
  readonly requeued: (environmentId: string) => Effect.Effect<unknown>
}): Effect.Effect<{
  readonly watch: (runId: string, deadlineMs: number) => Effect.Effect<void>
  readonly watchAll: (runs: ReadonlyArray<{ readonly id: string; readonly deadline_at: Date | null }>) => Effect.Effect<void>
  readonly release: (runId: string) => Effect.Effect<void>
  readonly size: Effect.Effect<number>
}, never, Scope.Scope> =>
  Effect.gen(function*() {
    const { assignment, sql, transitions } = deps
    const fibers = yield* FiberMap.make<string>()
    // Supervising fibers are forked from the runtime this service is built
    // in, not from whichever request asked (`FiberMap.run`): a request fiber
    // hands down its log annotations and span, and its larger set of fiber
    // refs costs memory in every parked fiber for as long as the run lasts.
    const fork = yield* Detached.forker
    const clock = yield* Effect.clock
    // When each supervised run's fiber will next wake; a shorter deadline replaces the fiber.
    const wakes = new Map<string, Wake>()

    // follow_up: whether ending this run writes more than the run itself (a
    // retry, a webhook); both depend only on the run's own snapshot columns.
    // Fibers waking together (a fleet of workers went silent) share their
    // reads and their bare time-outs (`Concurrency/Grouped`): one statement
    // per group instead of two per run kept every time-out within 1 s of its
    // deadline when 10,000 fell due within two seconds.
    const readDeadlines = yield* Grouped.make<string, DeadlineRow | undefined, never>({
      max: 500,
      id: (runId) => runId,
      run: (_key, runIds) =>
        sql<DeadlineRow>`
          SELECT id, status, deadline_at, (webhook_url IS NOT NULL OR attempt <= max_retries) AS follow_up
          FROM runs WHERE id = ANY(${runIds}::uuid[])`.pipe(
          Effect.orDie,
          Effect.map((rows) => {
            const byId = new Map(rows.map((row) => [row.id, row]))
            return runIds.map((runId) => Effect.succeed(byId.get(runId)))
          })
        )
    })
    const readDeadline = (runId: string) => readDeadlines("all", runId)
    const timeOuts = yield* Grouped.make<{ readonly runId: string; readonly at: number }, Terminal | undefined, never>({
      max: 500,
      id: (item) => item.runId,
      run: (_key, items) =>
        Effect.map(transitions.timeOutMany(items), (ended) => {
          const byId = new Map(ended.map((run) => [run.id, run]))
          return items.map((item) => {
            const run = byId.get(item.runId)
            return Effect.succeed(run === undefined ? undefined : { run, retry: undefined })
          })
        })
    })
    /** The run's time-out: grouped when it writes nothing but the run. */
    const timeOut = (runId: string, followUp: boolean, at: number) =>
      followUp ? transitions.timeOut(runId, at) : timeOuts("all", { runId, at })

    /**
     * One look at the run when its fiber wakes: applies the transition when
     * the deadline is really due; answers whether to sleep again (until
     * `wake.at`, the deadline as it stands now).
     */
    const check = (runId: string, wake: Wake): Effect.Effect<boolean> =>
      Effect.gen(function*() {
        // The moment the fiber woke, read before any round trip: the time-out
        // records it as the run's end (the deadline, not whenever the
        // statement got to run), and only a deadline at or before it is due.
        const woke = yield* Clock.currentTimeMillis
        const row = yield* readDeadline(runId)
        if (row === undefined || row.deadline_at === null) return false
        if (row.status !== "assigned" && row.status !== "claimed" && row.status !== "running") return false
        wake.at = toMillis(row.deadline_at)
        if (wake.at >= woke) return true
        if (row.status === "assigned") {
          const environmentId = yield* assignment.releaseExpired(runId)
          if (environmentId !== undefined) {
            yield* Effect.logInfo("claim timeout: run back to queued")
            yield* deps.requeued(environmentId)
          }
          // Re-read: reassigned (a new claim deadline) or left queued (done).
          return yield* check(runId, wake)
        }
        const terminal = yield* timeOut(runId, row.follow_up, woke)
        if (terminal === undefined) return yield* check(runId, wake)
        yield* Effect.logInfo(terminal.run.status === "cancelled" ? "cancel grace period over: run cancelled" : "run timed out").pipe(
          Effect.annotateLogs({ faultClass: terminal.run.fault_class })
        )
        if (terminal.retry !== undefined) {
          yield* Effect.logInfo("retry queued").pipe(Effect.annotateLogs({ retryRunId: terminal.retry.id }))
          yield* deps.requeued(terminal.retry.environment_id)
        }
        return false
      }).pipe(
        Effect.orDie,
        // A failed check only loses time: the sweep supervises the run again.
        // Interrupted only: the instance is stopping (its grouped reads and
        // time-outs close before these fibers), which is no failure to report.
        Effect.catchAllCause((cause) =>
          Cause.isInterruptedOnly(cause)
            ? Effect.succeed(false)
            : Effect.as(Effect.logWarning("supervision failed; the sweep will retry", cause), false)
        ),
        Effect.annotateLogs({ runId })
      )

    /**
     * The supervising fiber. While parked it holds nothing but a timer and one
     * continuation (no generator, no log annotations, no finalizer): the
     * caller knows the deadline, so it sleeps first and reads the run only
     * when it wakes. Recovering 10,000 runs costs 10,000 timers, not 10,000
     * queries at once. It wakes 1 ms past the deadline, so the UPDATE's
     * `deadline_at <= now` holds.
     */
    const supervise = (runId: string, wake: Wake): Effect.Effect<void> =>
      Effect.suspend(() => {
        const now = clock.unsafeCurrentTimeMillis()
        // The clock's own sleep: `Effect.sleep` looks the clock up on every
        // call and leaves ~0.5 KB more in each parked fiber (measured).
        // One continuation frame while parked: the second is built on waking.
        return Effect.flatMap(
          wake.at >= now ? clock.sleep(Duration.millis(wake.at - now + 1)) : Effect.void,
          () => Effect.flatMap(check(runId, wake), (again) => {
            if (again) return supervise(runId, wake)
            if (wakes.get(runId) === wake) wakes.delete(runId)
            return Effect.void
          })
        )
      })

    /**
     * Supervises the run until it leaves the active states. A no-op when this
     * instance already has a fiber that wakes no later than `deadlineMs`.
     */
    const watch = (runId: string, deadlineMs: number): Effect.Effect<void> =>
      Effect.suspend(() => {
        const current = wakes.get(runId)
        if (current !== undefined && current.at <= deadlineMs) return Effect.void
        const wake: Wake = { at: deadlineMs }
        wakes.set(runId, wake)
        // Replaces (interrupts) the run's earlier fiber, if any.
        return Effect.sync(() => FiberMap.unsafeSet(fibers, runId, fork(supervise(runId, wake))))
      })

    /**
     * The run ended here (a worker completed it): its fiber has nothing left
     * to do. Stopping it now saves the read it would make when it wakes.
     */
    const release = (runId: string): Effect.Effect<void> =>
      Effect.suspend(() => {
        if (!wakes.delete(runId)) return Effect.void
        return FiberMap.remove(fibers, runId)
      })

    const watchAll = (runs: ReadonlyArray<{ readonly id: string; readonly deadline_at: Date | null }>) =>
      Effect.forEach(runs, (r) => r.deadline_at === null ? Effect.void : watch(r.id, toMillis(r.deadline_at)), {
        discard: true
      })

    /** How many runs this instance supervises right now. */
    const size: Effect.Effect<number> = FiberMap.size(fibers)

    return { watch, watchAll, release, size } as const
  })

/**
 * What the deadline fibers of this instance cannot know by themselves. At
 * start it supervises every non-terminal run; then every
 * `sweepIntervalMillis` (up to 4× that while passes find nothing) it supervises runs whose deadline falls within
 * `sweepHorizonMillis` (runs another instance created, or left behind when
 * it stopped), assigns queued runs and releases runs of offline workers,
 * each pass only when one probe (`probe`) says it has something to act on.
 * Both run on fibers of the enclosing scope.
 */
export const startSweep = (deps: {
  readonly sql: SqlClient.SqlClient
  readonly config: TuningShape
  readonly assignment: Assignment
  readonly alarm: DueAlarm
  readonly watchAll: (runs: ReadonlyArray<{ readonly id: string; readonly deadline_at: Date | null }>) => Effect.Effect<void>
  readonly assignAndWatch: (environmentId?: string) => Effect.Effect<ReadonlyArray<Deadline>>
}): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function*() {
    const { alarm, assignAndWatch, assignment, config, sql, watchAll } = deps
    const activeWithDeadline = (horizon: string | undefined) =>
      sql<{ id: string; deadline_at: Date }>`
        SELECT id, deadline_at FROM runs
        WHERE ended_at IS NULL AND status IN ('assigned', 'claimed', 'running') AND deadline_at IS NOT NULL
        ${horizon === undefined ? sql`` : sql`AND deadline_at <= ${horizon}::timestamptz ORDER BY deadline_at LIMIT ${config.batchSize}`}`

    const recover = Effect.gen(function*() {
      const runs = yield* activeWithDeadline(undefined)
      yield* watchAll(runs)
      yield* assignAndWatch()
      yield* Effect.logInfo("supervision recovered").pipe(Effect.annotateLogs({ runs: runs.length }))
    })

    // What the sweep would find, in one round trip of index probes: an idle
    // service (however many delayed runs wait) sweeps with this one
    // statement a second instead of the four or five the passes cost, and
    // its due loop sleeps until `next_due` (the two probes of
    // `RunStore.nextDue`, read here so that a run another instance created
    // costs the due loop no look of its own).
    const probe = (now: string, horizon: string) =>
      sql<{ offline: boolean; deadlines: boolean; queued: boolean; next_due: Date | null }>`
        SELECT
          LEAST(
            (SELECT min(available_at) FROM runs WHERE delayed AND ended_at IS NULL),
            (SELECT expires_at FROM runs WHERE expires_at IS NOT NULL AND ended_at IS NULL AND status IN ('queued', 'assigned')
             ORDER BY expires_at LIMIT 1)
          ) AS next_due,
          EXISTS (SELECT 1 FROM runs r JOIN workers w ON w.id = r.worker_id
            WHERE r.ended_at IS NULL AND r.status = 'assigned'
              AND w.last_seen_at <= ${now}::timestamptz - ${config.workerOfflineAfterSeconds}::int * interval '1 second') AS offline,
          EXISTS (SELECT 1 FROM runs WHERE ended_at IS NULL AND status IN ('assigned', 'claimed', 'running')
            AND deadline_at <= ${horizon}::timestamptz) AS deadlines,
          EXISTS (SELECT 1 FROM runs WHERE worker_id IS NULL AND ended_at IS NULL AND NOT flow_limited AND NOT delayed)
            OR EXISTS (SELECT 1 FROM runs WHERE worker_id IS NULL AND ended_at IS NULL AND flow_limited) AS queued`

    /** One pass; answers whether it found anything to act on. */
    const sweep = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const horizon = new Date(now + config.sweepHorizonMillis).toISOString()
      const [found] = yield* probe(new Date(now).toISOString(), horizon)
      if (found === undefined) return false
      if (found.next_due !== null) yield* alarm.ringAt(toMillis(found.next_due))
      if (found.offline) for (const environmentId of yield* assignment.releaseOffline) yield* assignAndWatch(environmentId)
      if (found.deadlines) yield* watchAll(yield* activeWithDeadline(horizon))
      if (found.queued) yield* assignAndWatch()
      const dueSoon = found.next_due !== null && toMillis(found.next_due) <= now + config.sweepHorizonMillis
      return found.offline || found.deadlines || found.queued || dueSoon
    })

    const guarded = <A, E>(what: string, effect: Effect.Effect<A, E>) =>
      effect.pipe(Effect.catchAllCause((cause) => Effect.logWarning(`${what} failed`, cause)))

    // Recovery and the sweep run side by side: a large backlog to recover must
    // not hold up the sweep (watching a run twice is harmless).
    yield* guarded("supervision recovery", recover).pipe(
      Effect.annotateLogs({ service: "Scheduler/Supervisor" }),
      Effect.forkScoped
    )
    // An idle service looks less often: each pass that finds nothing doubles
    // the pause, up to 4× the interval and never past the horizon (a deadline
    // is still seen before it falls due); a pass that finds something, or
    // fails, brings it back to the interval. A wake-up of an idle process
    // costs milliseconds of CPU (its code is cold), and this is the most
    // frequent one (docs/benchmarks.md, delayed runs at rest).
    const base = config.sweepIntervalMillis
    const idleMax = Math.max(base, Math.min(4 * base, config.sweepHorizonMillis - base))
    // A pass that failed (logged by `guarded`) counts as one that found something.
    const pass = guarded("supervision sweep", sweep).pipe(Effect.map((found) => found !== false))
    const passes = (pause: number): Effect.Effect<never> =>
      Effect.sleep(Duration.millis(pause)).pipe(
        Effect.zipRight(pass),
        Effect.flatMap((found) => passes(found ? base : Math.min(2 * pause, idleMax)))
      )
    yield* passes(base).pipe(
      Effect.annotateLogs({ service: "Scheduler/Supervisor" }),
      Effect.forkScoped
    )

  })

/** What a start decided: another instance was alive, or how many deadlines it moved (those that passed after `since`). */
export interface Graced {
  readonly alive: boolean
  readonly since: string | undefined
  readonly moved: number
}

/**
 * How often an instance records that it is alive: each beat is a statement and
 * a wake-up (about 1 ms of CPU on an idle service), so no more often than the
 * staleness below needs.
 */
export const beatMillis = 2_000
/**
 * An instance whose record is older than this (and that did not record a
 * stop) crashed. Past two beats: a busy instance that misses one is still
 * counted, and a start right after a crash, within this, grants no grace.
 */
export const staleMillis = 5_000

/**
 * Records this instance in `service_instances` and, first, decides the
 * restart grace. While no instance runs, no heartbeat can arrive, so a
 * deadline that passes then says nothing about the run's worker. When this
 * instance starts and no other is alive, every run deadline that passed since
 * the service was last seen alive gets one window from now (`RunStore.graceDeadlines`):
 * a worker that kept its run through the outage keeps it with its next call,
 * and one that really died is still timed out a window later. With another
 * instance alive there was no outage and nothing is moved. Started by the
 * supervisor before it recovers deadlines, and so before the port opens:
 * nothing times out or turns a worker away first. The record is kept fresh by a fiber of
 * the enclosing scope; closing the scope records the stop.
 */
export const startServicePresence = (deps: {
  readonly sql: SqlClient.SqlClient
  readonly store: RunStore.Service
}): Effect.Effect<{ readonly id: string; readonly graced: Graced }, never, Scope.Scope> =>
  Effect.gen(function*() {
    const { sql, store } = deps
    const id = uuidv7()

    // One start at a time decides (an advisory lock for the transaction):
    // two instances starting together after an outage must not each see the
    // other as alive and both skip the grace.
    const graced = yield* sql.withTransaction(Effect.gen(function*() {
      yield* sql`SELECT pg_advisory_xact_lock(hashtext('pipeline-trigger-service:service-instances'))`
      const nowMs = yield* Clock.currentTimeMillis
      const now = new Date(nowMs).toISOString()
      const staleBefore = new Date(nowMs - staleMillis).toISOString()
      const [seen] = yield* sql<{ last_seen: Date | null; alive: number }>`
        SELECT max(last_seen_at) AS last_seen,
          count(*) FILTER (WHERE stopped_at IS NULL AND last_seen_at > ${staleBefore}::timestamptz)::int AS alive
        FROM service_instances`
      const alive = (seen?.alive ?? 0) > 0
      const since = seen?.last_seen == null ? undefined : seen.last_seen.toISOString()
      const moved = alive ? 0 : yield* store.graceDeadlines(since, now)
      // The dead instances' records are kept no longer: this one now says the service is alive.
      yield* sql`DELETE FROM service_instances WHERE stopped_at IS NOT NULL OR last_seen_at <= ${staleBefore}::timestamptz`
      yield* sql`INSERT INTO service_instances (id, started_at, last_seen_at) VALUES (${id}, ${now}::timestamptz, ${now}::timestamptz)`
      return { alive, since, moved } satisfies Graced
    })).pipe(Effect.orDie)
    if (graced.moved > 0) {
      yield* Effect.logInfo("restart grace: deadlines that passed while the service was away moved to one window from now").pipe(
        Effect.annotateLogs({ runs: graced.moved, serviceLastSeen: graced.since ?? "unknown" })
      )
    }

    // The record says the service's time (what deadlines are computed from);
    // the beat itself keeps wall time, so a test moving a TestClock by hours
    // does not replay a beat for every second in between.
    const clock = yield* Effect.clock
    // An upsert: an instance stalled past `staleMillis` may have lost its record to a starting one.
    const beat = Effect.flatMap(clock.currentTimeMillis, (ms) => {
      const now = new Date(ms).toISOString()
      return sql`
        INSERT INTO service_instances (id, started_at, last_seen_at) VALUES (${id}, ${now}::timestamptz, ${now}::timestamptz)
        ON CONFLICT (id) DO UPDATE SET last_seen_at = EXCLUDED.last_seen_at`
    })
    yield* beat.pipe(
      Effect.catchAllCause((cause) => Effect.logWarning("service presence not recorded; trying again", cause)),
      Effect.repeat(Schedule.spaced(beatMillis)),
      Effect.delay(beatMillis),
      Effect.withClock(Clock.make()),
      Effect.interruptible,
      Effect.forkScoped
    )

    // A graceful stop says so: the next start knows at once that no instance is alive.
    yield* Effect.addFinalizer(() =>
      Effect.flatMap(nowIso, (now) =>
        sql`UPDATE service_instances SET last_seen_at = ${now}::timestamptz, stopped_at = ${now}::timestamptz WHERE id = ${id}`
      ).pipe(Effect.timeout("2 seconds"), Effect.ignore)
    )

    return { id, graced } as const
  })

export declare namespace Revocation {
  /** What happens to a revoked worker's runs. */
  export interface Service {
    /** Releases the worker's assigned runs and times out its claimed and running ones; answers how many of each. */
    readonly workerRevoked: (workerId: string) => Effect.Effect<{ readonly released: number; readonly timedOut: number }>
  }
}

/**
 * What happens to a revoked worker's runs, once the revocation has committed
 * (from then on the worker is assigned nothing and its token is refused):
 * assigned runs go back to `queued` and are handed out again; claimed and
 * running runs end `timed_out` (faultClass `infra`), and their retries are
 * handed out. Runs ending meanwhile by other means are left to those.
 *
 * Should the process die between the revocation and this, nothing is lost:
 * supervision ends those runs at their deadlines as for any silent worker.
 */
export class Revocation extends Effect.Service<Revocation>()("Scheduler/Revocation", {
  effect: Effect.gen(function*() {
    const assignment = yield* Assignment
    const transitions = yield* Transitions
    const supervisor = yield* Supervisor

    const workerRevoked = (workerId: string): Effect.Effect<{ readonly released: number; readonly timedOut: number }> =>
      Effect.gen(function*() {
        const released = yield* assignment.releaseWorker(workerId)
        const ended = yield* transitions.timeOutRevoked(workerId)
        // Their fibers have nothing left to watch (a reassigned run is watched anew below).
        for (const run of released) yield* supervisor.release(run.id)
        for (const terminal of ended) yield* supervisor.release(terminal.run.id)
        const environments = new Set([
          ...released.map((run) => run.environment_id),
          ...ended.flatMap((terminal) => terminal.retry === undefined ? [] : [terminal.retry.environment_id])
        ])
        for (const environmentId of environments) yield* supervisor.assignAndWatch(environmentId)
        if (released.length > 0 || ended.length > 0) {
          yield* Effect.logInfo("revoked worker's runs released and timed out").pipe(
            Effect.annotateLogs({ released: released.length, timedOut: ended.length })
          )
        }
        return { released: released.length, timedOut: ended.length }
      }).pipe(Effect.annotateLogs({ workerId }), Effect.withSpan("Revocation.workerRevoked"))

    const service: Revocation.Service = { workerRevoked }
    return service
  })
}) {}
