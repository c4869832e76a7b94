import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { Assignment, Deadline } from "./Assignment.js"

/**
 * Assignment passes that do not pile up: one per environment ("*" for all)
 * at a time, the claim deadlines of what each assigns supervised (`watchAll`).
 */
export const make = (deps: {
  readonly assignment: Assignment
  readonly watchAll: (runs: ReadonlyArray<Deadline>) => Effect.Effect<void>
  /** Where the extra passes others ask for run (the supervisor's scope). */
  readonly scope: Scope.Scope
}) => {
  const { assignment, scope, watchAll } = deps
  // The assignment pass running now, per environment ("*" for all): a call
  // arriving meanwhile only asks it for one more pass, so under load (a pass
  // per poll and per new run) passes do not pile up racing for the same runs.
  const passes = new Map<string, { again: boolean }>()

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

  return assignAndWatch
}
