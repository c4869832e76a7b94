import * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberMap from "effect/FiberMap"
import * as Schedule from "effect/Schedule"
import type { RunStatus } from "../Runs/Run.js"
import { type Advance, type Created, type CreateRequest, type Placement, RunsRepo } from "../Runs/RunsRepo.js"
import { Assignment, type Deadline } from "./Assignment.js"
import { Tuning } from "../Config/Tuning.js"
import { toMillis } from "./Time.js"
import * as Detached from "../Concurrency/Detached.js"
import * as Grouped from "../Concurrency/Grouped.js"
import type { PolledRow } from "../Runs/Run.js"
import { type Terminal, Transitions } from "./Transitions.js"
import { assignedChannel, Wakeups } from "./Wakeups.js"
import { RunFeed } from "./RunFeed.js"

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
 * supervising the same run still transition it exactly once.
 *
 * Each instance sweeps the database every `sweepIntervalMillis`: it supervises
 * runs whose deadline falls within `sweepHorizonMillis` (runs another instance
 * created, or left behind when it stopped), assigns queued runs and releases
 * runs of offline workers. At start it supervises every non-terminal run.
 */
export class Supervisor extends Effect.Service<Supervisor>()("Scheduler/Supervisor", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const config = yield* Tuning
    const assignment = yield* Assignment
    const transitions = yield* Transitions
    const wakeups = yield* Wakeups
    const feed = yield* RunFeed
    const repo = yield* RunsRepo
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
            yield* assignAndWatch(environmentId)
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
          yield* assignAndWatch(terminal.retry.environment_id)
        }
        return false
      }).pipe(
        Effect.orDie,
        // A failed check only loses time: the sweep supervises the run again.
        Effect.catchAllCause((cause) => Effect.as(Effect.logWarning("supervision failed; the sweep will retry", cause), false)),
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

    // The assignment pass running now, per environment ("*" for all): a call
    // arriving meanwhile only asks it for one more pass, so under load (a pass
    // per poll and per new run) passes do not pile up racing for the same runs.
    const passes = new Map<string, { again: boolean }>()
    const scope = yield* Effect.scope

    /**
     * Assigns queued runs (of one environment, or all) and supervises their
     * claim deadlines. When a pass for the same scope is already running, the
     * call answers at once and that pass runs once more, so whatever was
     * queued before this call is assigned by the time the passes end.
     *
     * The caller that starts a pass waits for that one pass only: the extra
     * passes others ask for meanwhile run in a background fiber. Looping in
     * the caller would keep one poll (or run request) busy for as long as
     * requests keep arriving, and every run assigned to that worker would wait
     * as long.
     */
    const assignAndWatch = (environmentId?: string): Effect.Effect<ReadonlyArray<Deadline>> =>
      Effect.suspend(() => {
        const key = environmentId ?? "*"
        const running = passes.get(key)
        if (running !== undefined) {
          running.again = true
          return Effect.succeed([])
        }
        const pass = { again: false }
        passes.set(key, pass)
        const once = Effect.tap(assignment.assignQueued(environmentId), watchAll)
        const more = () => {
          const again = pass.again
          pass.again = false
          return again
        }
        const done = Effect.sync(() => passes.delete(key))
        const rest = once.pipe(Effect.repeat({ while: more }), Effect.ensuring(done))
        // Uninterruptible: a caller that goes away must not drop the extra passes others asked for.
        return once.pipe(
          // Interruptible: forked here it would inherit this region's flags and hold up shutdown.
          Effect.tap(() => more() ? Effect.asVoid(Effect.forkIn(Effect.interruptible(rest), scope)) : done),
          Effect.onError(() => done),
          Effect.uninterruptible
        )
      })

    /** The rules run creation uses to assign a new run in its own statement. */
    const placement: Placement = {
      claimTimeoutSeconds: config.claimTimeoutSeconds,
      workerOfflineAfterSeconds: config.workerOfflineAfterSeconds,
      maxAssignedPerWorker: config.maxAssignedPerWorker,
      activeWorkerSeconds: config.activeWorkerSeconds,
      channel: assignedChannel
    }

    /**
     * After run requests: a run placed by its creating statement gets its
     * claim deadline supervised and its worker's poll woken here (other
     * instances' polls wake on the statement's NOTIFY); runs left queued get
     * an assignment pass (one for the lot).
     */
    const requested = (created: ReadonlyArray<Created | undefined>): Effect.Effect<void> =>
      Effect.suspend(() => {
        const queuedIn = new Set<string>()
        const effects: Array<Effect.Effect<unknown>> = []
        const environments = new Set<string>()
        for (const run of created) {
          if (run === undefined || !run.created) continue
          environments.add(run.run.environment_id)
          if (run.assigned === undefined) {
            queuedIn.add(run.run.environment_id)
            continue
          }
          effects.push(watch(run.run.id, run.assigned.deadlineAt.getTime()))
          // A run claimed for a waiting poll was handed to it already (see `createRuns`).
          if (run.assigned.claimed === undefined) effects.push(wakeups.wake(run.assigned.workerId))
        }
        for (const environmentId of queuedIn) effects.push(assignAndWatch(environmentId))
        effects.push(feed.announce(environments))
        return Effect.all(effects, { discard: true })
      })

    /** Undoes a run claimed for a poll that went away meanwhile: assigned to its worker, for its next poll. */
    const unclaim = (claimed: PolledRow) =>
      assignment.unclaim(claimed.id, claimed.worker_id!).pipe(
        Effect.flatMap((deadline) =>
          deadline === undefined ? Effect.void : Effect.zipRight(watch(claimed.id, deadline.getTime()), wakeups.wake(claimed.worker_id!))
        ),
        Effect.zipLeft(Effect.logInfo("handed-over run's poll had gone; claim undone").pipe(Effect.annotateLogs({ runId: claimed.id })))
      )

    /**
     * Creates runs of one trigger (`RunsRepo.createMany`) with the placement
     * rules, then supervises what it created (`requested`). It offers the
     * statement the `claim=true` polls waiting here in the runs' environment:
     * a run placed on one of their workers is claimed in that statement and
     * handed to the poll, which then needs no statement of its own. Should
     * that poll have gone away meanwhile, the claim is undone (the run is
     * assigned to the worker, for its next poll).
     */
    const createRuns = (
      triggerId: string,
      requests: ReadonlyArray<CreateRequest>,
      options: { readonly environmentId?: string | undefined; readonly advance?: Advance | undefined } = {}
    ): Effect.Effect<ReadonlyArray<Created | undefined>> =>
      Effect.uninterruptibleMask((restore) => {
        const reservation = wakeups.reserve(options.environmentId)
        const create = (placement: Placement) => repo.createMany(triggerId, requests, { ...options, placement })
        const created = reservation.workerIds.length === 0
          ? restore(create(placement))
          : restore(create({ ...placement, claimFor: reservation.workerIds })).pipe(
            Effect.onExit((exit) => {
              const claimed = Exit.isSuccess(exit)
                ? exit.value.flatMap((run) => run?.assigned?.claimed === undefined ? [] : [run.assigned.claimed])
                : []
              return Effect.forEach(reservation.settle(claimed), unclaim, { discard: true })
            })
          )
        // Part of creating, so no caller can forget it: an unsupervised run would wait for the sweep.
        return Effect.tap(created, requested)
      })

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

    const sweep = Effect.gen(function*() {
      for (const environmentId of yield* assignment.releaseOffline) yield* assignAndWatch(environmentId)
      const horizon = new Date((yield* Clock.currentTimeMillis) + config.sweepHorizonMillis).toISOString()
      yield* watchAll(yield* activeWithDeadline(horizon))
      yield* assignAndWatch()
    })

    const guarded = <A, E>(what: string, effect: Effect.Effect<A, E>) =>
      effect.pipe(Effect.catchAllCause((cause) => Effect.logWarning(`${what} failed`, cause)))

    // Recovery and the sweep run side by side: a large backlog to recover must
    // not hold up the sweep (watching a run twice is harmless).
    yield* guarded("supervision recovery", recover).pipe(
      Effect.annotateLogs({ service: "Scheduler/Supervisor" }),
      Effect.forkScoped
    )
    yield* guarded("supervision sweep", sweep).pipe(
      Effect.repeat(Schedule.spaced(config.sweepIntervalMillis)),
      Effect.delay(config.sweepIntervalMillis),
      Effect.annotateLogs({ service: "Scheduler/Supervisor" }),
      Effect.forkScoped
    )

    /** How many runs this instance supervises right now. */
    const size: Effect.Effect<number> = FiberMap.size(fibers)

    return { watch, watchAll, release, assignAndWatch, createRuns, size } as const
  })
}) {}
