import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { Notifications } from "../Db/Notifications.js"

/** Postgres channel carrying the id of a worker that was just given runs. */
export const assignedChannel = "pts_run_assigned"

/**
 * Wakes long-polling workers as soon as a run is assigned to them: at once for
 * assignments made by this instance, and through LISTEN/NOTIFY for those made
 * by another instance sharing the database. A waiting poll is one `Deferred`
 * in a map, so thousands of idle workers cost next to nothing.
 */
export class Wakeups extends Effect.Service<Wakeups>()("Scheduler/Wakeups", {
  scoped: Effect.gen(function*() {
    const notifications = yield* Notifications
    const waiting = new Map<string, Set<Deferred.Deferred<void>>>()

    const wake = (workerId: string): Effect.Effect<void> =>
      Effect.suspend(() => {
        const set = waiting.get(workerId)
        if (set === undefined) return Effect.void
        waiting.delete(workerId)
        return Effect.forEach(set, (d) => Deferred.succeed(d, undefined), { discard: true })
      })

    /**
     * Registers interest in `workerId` for the enclosing scope and answers an
     * effect that completes on the next wake-up. Register before looking for
     * runs, so an assignment in between is not missed.
     */
    const subscribe = (workerId: string): Effect.Effect<Effect.Effect<void>, never, Scope.Scope> =>
      Effect.acquireRelease(
        Effect.map(Deferred.make<void>(), (deferred) => {
          const set = waiting.get(workerId) ?? new Set()
          set.add(deferred)
          waiting.set(workerId, set)
          return deferred
        }),
        (deferred) =>
          Effect.sync(() => {
            const set = waiting.get(workerId)
            if (set === undefined) return
            set.delete(deferred)
            if (set.size === 0) waiting.delete(workerId)
          })
      ).pipe(Effect.map((deferred) => Deferred.await(deferred)))

    // Another instance's assignments arrive here; our own do too, harmlessly
    // (the in-process wake-up already happened, nobody is waiting any more).
    yield* notifications.listen(assignedChannel).pipe(
      Stream.runForEach(wake),
      Effect.tapErrorCause((cause) => Effect.logWarning("LISTEN for assignments failed; retrying", cause)),
      Effect.retry(Schedule.spaced("1 second")),
      Effect.forkScoped
    )

    return { wake, subscribe } as const
  })
}) {}
