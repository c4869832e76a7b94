import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { Tuning } from "../Config/Tuning.js"
import { toRun } from "../Runs/Run.js"
import { RunStore } from "../Runs/RunStore.js"
import * as SetClauses from "../Runs/Store/SetClauses.js"
import { RunEvents } from "./RunEvents.js"
import { RunFeed } from "./RunFeed.js"
import { RunNotFound, type RunRejection, RunStateConflict, type WorkerStep } from "./RunRejection.js"
import type { Terminal } from "./Terminal.js"

/**
 * What every transition statement shares (`Steps`, `Terminal`, `Endings`,
 * `CancelRequests`): the SET clauses two or more of them write, why a run
 * matched no row, and what follows a change (the live feed, the terminal-run
 * stream). Built once with the `Transitions` service: the transitions are
 * plain closures over it, so splitting them into files costs nothing per call.
 */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const events = yield* RunEvents
  const feed = yield* RunFeed
  const store = yield* RunStore
  const { cancelGraceSeconds } = yield* Tuning

  // Live subscribers of the runs' environments look at the new timeline rows now.
  const announced = (rows: ReadonlyArray<{ readonly environment_id: string }>) =>
    rows.length === 0 ? Effect.void : feed.announce(new Set(rows.map((row) => row.environment_id)))

  const published = (terminal: Terminal | undefined) =>
    terminal === undefined || terminal.run.ended_at === null ? Effect.void : events.publish(toRun(terminal.run))

  /** Why each of the worker's runs matched no row: not its run, or the wrong state for the step. */
  const rejections = (workerId: string, runIds: ReadonlyArray<string>, step: WorkerStep) =>
    Effect.map(
      store.statusesOf(workerId, runIds),
      (rows): ReadonlyArray<RunRejection> => {
        const status = new Map(rows.map((row) => [row.id, row.status]))
        return runIds.map((runId) => {
          const now = status.get(runId)
          return now === undefined ? new RunNotFound({ runId }) : new RunStateConflict({ runId, step, status: now })
        })
      }
    )

  const clauses = SetClauses.make(sql, cancelGraceSeconds)

  return {
    sql,
    events,
    announced,
    published,
    rejections,
    store,
    ...clauses
  } as const
})

export type TransitionKit = Effect.Effect.Success<typeof make>
