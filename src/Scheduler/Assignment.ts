import * as Effect from "effect/Effect"
import { hotSpan } from "../Config/Tracing.js"
import { RunStore } from "../RunStore/RunStore.js"
import type { Deadline } from "../RunStore/Assignment.js"
import { RunFeed } from "./RunFeed.js"
import { Wakeups } from "./Wakeups.js"

export type { Deadline } from "../RunStore/Assignment.js"

/**
 * Moves runs between `queued` and `assigned` (the statements are
 * `RunStore`'s, see `RunStore/Assignment` and `Releases`), with what
 * follows on this instance: the assigned workers' waiting polls woken, the
 * live feed.
 */
export class Assignment extends Effect.Service<Assignment>()("Scheduler/Assignment", {
  effect: Effect.gen(function*() {
    const store = yield* RunStore
    const wakeups = yield* Wakeups
    const feed = yield* RunFeed

    /** `RunStore.assignQueued`, the workers given runs woken; answers the runs assigned. */
    const assignQueued = (environmentId?: string): Effect.Effect<ReadonlyArray<Deadline>> =>
      Effect.gen(function*() {
        const assigned = yield* store.assignQueued(environmentId)
        yield* Effect.forEach(new Set(assigned.map((r) => r.worker_id)), wakeups.wake, { discard: true })
        yield* feed.announce(new Set(assigned.map((r) => r.environment_id)))
        if (assigned.length > 0) yield* Effect.logDebug("runs assigned").pipe(Effect.annotateLogs({ count: assigned.length }))
        return assigned.map(({ deadline_at, environment_id, id }) => ({ id, environment_id, deadline_at }))
      }).pipe(hotSpan("Assignment.assignQueued"))

    /** Claim timeout (`RunStore.releaseExpired`): answers the run's environment, or undefined when it moved on. */
    const releaseExpired = (runId: string): Effect.Effect<string | undefined> =>
      Effect.gen(function*() {
        const rows = yield* store.releaseExpired(runId)
        yield* feed.announce(rows.map((r) => r.environment_id))
        return rows[0]?.environment_id
      }).pipe(hotSpan("Assignment.releaseExpired"))

    /** Runs of offline workers back to `queued` (`RunStore.releaseOffline`); answers their environments. */
    const releaseOffline: Effect.Effect<ReadonlyArray<string>> = Effect.gen(function*() {
      const rows = yield* store.releaseOffline
      if (rows.length > 0) yield* Effect.logInfo("runs of offline workers released").pipe(Effect.annotateLogs({ count: rows.length }))
      const environments = [...new Set(rows.map((r) => r.environment_id))]
      yield* feed.announce(environments)
      return environments
    }).pipe(hotSpan("Assignment.releaseOffline"))

    /** A revoked worker's assigned runs back to `queued` (`RunStore.releaseWorker`); answers them. */
    const releaseWorker = (workerId: string): Effect.Effect<ReadonlyArray<{ readonly id: string; readonly environment_id: string }>> =>
      store.releaseWorker(workerId).pipe(Effect.withSpan("Assignment.releaseWorker"))

    /** `RunStore.unclaim`: answers the new claim deadline, or undefined when the run moved on. */
    const unclaim = (runId: string, workerId: string): Effect.Effect<Date | undefined> =>
      Effect.gen(function*() {
        const rows = yield* store.unclaim(runId, workerId)
        yield* feed.announce(rows.map((r) => r.environment_id))
        return rows[0]?.deadline_at
      }).pipe(hotSpan("Assignment.unclaim"))

    return { assignQueued, releaseExpired, releaseOffline, releaseWorker, unclaim } as const
  })
}) {}
