import * as Effect from "effect/Effect"
import { hotSpan } from "../Config/Tracing.js"
import * as Metrics from "../Observability/Metrics.js"
import type { PolledRow, RunRow } from "../Domain/Run.js"
import type { RunRejection, WorkerStep } from "./RunRejection.js"
import type { TransitionKit } from "./TransitionKit.js"

/** Dispatch latency (request to claim) of runs just claimed. */
const dispatched = (rows: ReadonlyArray<RunRow>): void => {
  for (const row of rows) {
    if (row.claimed_at !== null) {
      Metrics.record.dispatched(row.environment_id, new Date(row.claimed_at).getTime() - new Date(row.created_at).getTime())
    }
  }
}

/**
 * A worker's steps before the end (the statements are `RunStore`'s, see
 * `RunStore/Steps`), with what follows them: the dispatch latency of
 * claimed runs, the live feed, and why a run did not move.
 */
export const make = (kit: TransitionKit) => {
  const { announced, rejections, store } = kit

  /** `RunStore.claimMany`, its runs' dispatch latency recorded and announced. */
  const claimMany = (workerId: string, max: number, start = false): Effect.Effect<ReadonlyArray<PolledRow>> =>
    store.claimMany(workerId, max, start).pipe(
      Effect.tap((rows) => dispatched(rows)),
      Effect.tap(announced),
      hotSpan("Transitions.claimMany")
    )

  /**
   * `RunStore.stepMany`, and for each run it could not move, why: not the
   * worker's (`RunNotFound`) or the wrong state or a passed deadline
   * (`RunStateConflict`).
   */
  const stepMany = (
    workerId: string,
    runIds: ReadonlyArray<string>,
    step: Exclude<WorkerStep, "complete">
  ): Effect.Effect<{ readonly moved: ReadonlyArray<RunRow>; readonly rejected: ReadonlyArray<RunRejection> }> =>
    Effect.gen(function*() {
      const moved = yield* store.stepMany(workerId, runIds, step)
      if (step === "claim") dispatched(moved)
      if (step !== "heartbeat") yield* announced(moved)
      const done = new Set(moved.map((row) => row.id))
      const missing = runIds.filter((id) => !done.has(id))
      const rejected = missing.length === 0 ? [] : yield* rejections(workerId, missing, step)
      return { moved, rejected }
    }).pipe(hotSpan("Transitions.stepMany"))

  return { claimMany, assignedTo: store.assignedTo, stepMany } as const
}
