import type * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import type { TuningShape } from "../Config/Tuning.js"
import type { Assignment, Deadline } from "./Assignment.js"

/**
 * What the deadline fibers of this instance cannot know by themselves. At
 * start it supervises every non-terminal run; then every
 * `sweepIntervalMillis` it supervises runs whose deadline falls within
 * `sweepHorizonMillis` (runs another instance created, or left behind when
 * it stopped), assigns queued runs and releases runs of offline workers.
 * Both run on fibers of the enclosing scope.
 */
export const start = (deps: {
  readonly sql: SqlClient.SqlClient
  readonly config: TuningShape
  readonly assignment: Assignment
  readonly watchAll: (runs: ReadonlyArray<{ readonly id: string; readonly deadline_at: Date | null }>) => Effect.Effect<void>
  readonly assignAndWatch: (environmentId?: string) => Effect.Effect<ReadonlyArray<Deadline>>
}): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function*() {
    const { assignAndWatch, assignment, config, sql, watchAll } = deps
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

  })
