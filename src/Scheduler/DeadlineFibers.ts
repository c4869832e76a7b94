import type * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberMap from "effect/FiberMap"
import type * as Scope from "effect/Scope"
import * as Detached from "../Concurrency/Detached.js"
import * as Grouped from "../Concurrency/Grouped.js"
import type { RunStatus } from "../Domain/Run.js"
import type { Assignment } from "./Assignment.js"
import { toMillis } from "../Domain/Time.js"
import type { Terminal, Transitions } from "./Transitions.js"

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
export const make = (deps: {
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

    /** How many runs this instance supervises right now. */
    const size: Effect.Effect<number> = FiberMap.size(fibers)

    return { watch, watchAll, release, size } as const
  })
