import * as Effect from "effect/Effect"
import { hotSpan } from "../Config/Tracing.js"
import { type RunRow, toRun } from "../Domain/Run.js"
import type { Completion } from "../RunStore/Endings.js"
import type { Terminal } from "../RunStore/Terminal.js"
import type { RunRejection } from "./RunRejection.js"
import type { Ending } from "./Terminal.js"
import type { TransitionKit } from "./TransitionKit.js"

/**
 * A run ends (the statements are `RunStore`'s, see `RunStore/Endings`),
 * with what follows: the terminal-run stream, the live feed, and why a run
 * a worker completed did not end.
 */
export const make = (kit: TransitionKit, ending: Ending) => {
  const { announced, events, published, rejections, store } = kit

  /**
   * `RunStore.completeMany`, and for each run it could not end, why: not the
   * worker's (`RunNotFound`) or the wrong state (`RunStateConflict`).
   */
  const completeMany = (
    workerId: string,
    items: ReadonlyArray<{ readonly runId: string; readonly completion: Completion }>
  ): Effect.Effect<{ readonly ended: ReadonlyArray<Terminal>; readonly rejected: ReadonlyArray<RunRejection> }> =>
    Effect.gen(function*() {
      const runIds = items.map((item) => item.runId)
      const ended = yield* ending(runIds.length, (lease) => store.completeMany(workerId, items, lease))
      yield* Effect.forEach(ended, published, { discard: true })
      yield* announced(ended.map((t) => t.run))
      const done = new Set(ended.map((t) => t.run.id))
      const missing = runIds.filter((id) => !done.has(id))
      const rejected = missing.length === 0 ? [] : yield* rejections(workerId, missing, "complete")
      return { ended, rejected }
    }).pipe(hotSpan("Transitions.completeMany"))

  /** `RunStore.timeOut`: undefined when the deadline moved or another instance won. */
  const timeOut = (runId: string, at?: number): Effect.Effect<Terminal | undefined> =>
    Effect.gen(function*() {
      const [ended] = yield* ending(1, (lease) => store.timeOut(runId, at, lease))
      yield* published(ended)
      if (ended !== undefined) yield* announced([ended.run])
      return ended
    }).pipe(hotSpan("Transitions.timeOut", { runId }))

  /** `RunStore.timeOutMany`, its runs published and announced. */
  const timeOutMany = (items: ReadonlyArray<{ readonly runId: string; readonly at: number }>): Effect.Effect<ReadonlyArray<RunRow>> =>
    Effect.gen(function*() {
      const ended = yield* store.timeOutMany(items)
      yield* Effect.forEach(ended, (run) => events.publish(toRun(run)), { discard: true })
      yield* announced(ended)
      return ended
    }).pipe(hotSpan("Transitions.timeOutMany"))

  /** The revoked worker's claimed and running runs timed out at once (`RunStore.timeOutRevoked`); answers the runs it ended. */
  const timeOutRevoked = (workerId: string): Effect.Effect<ReadonlyArray<Terminal>> =>
    Effect.gen(function*() {
      const runIds = yield* store.heldBy(workerId)
      if (runIds.length === 0) return []
      const ended = yield* ending(runIds.length, (lease) => store.timeOutRevoked(workerId, runIds, lease))
      yield* Effect.forEach(ended, published, { discard: true })
      return ended
    }).pipe(Effect.withSpan("Transitions.timeOutRevoked", { attributes: { workerId } }))

  return { completeMany, timeOut, timeOutMany, timeOutRevoked } as const
}
