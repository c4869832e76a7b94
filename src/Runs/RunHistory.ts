import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Timestamp } from "../Domain/Schemas.js"
import { isUuid, RunStatus, type RunRow } from "./Run.js"
import { RunEventReason } from "./RunTimeline.js"

/** One step of a run's timeline (`GET /runs/{id}/events`). */
export const RunEvent = Schema.Struct({
  status: RunStatus,
  at: Timestamp,
  workerId: Schema.NullOr(Schema.UUID),
  reason: RunEventReason
}).annotations({ identifier: "RunEvent" })
export type RunEvent = typeof RunEvent.Type

interface RunEventRow {
  readonly status: RunStatus
  readonly at: Date
  readonly worker_id: string | null
  readonly reason: RunEventReason
}

/** Reads of one run by id: the row and its stored timeline. */
export class RunHistory extends Effect.Service<RunHistory>()("Runs/History", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** The run, or undefined (also for a malformed id). The caller checks the environment's policy. */
    const find = (runId: string): Effect.Effect<RunRow | undefined> =>
      isUuid(runId)
        ? sql<RunRow>`SELECT * FROM runs WHERE id = ${runId}`.pipe(Effect.map((rows) => rows[0]), Effect.orDie)
        : Effect.succeed(undefined)

    /** The run's transitions in the order they happened. */
    const events = (runId: string): Effect.Effect<ReadonlyArray<RunEvent>> =>
      sql<RunEventRow>`
        SELECT status, at, worker_id, reason FROM run_events WHERE run_id = ${runId} ORDER BY id`.pipe(
        Effect.map((rows) =>
          rows.map((row): RunEvent => ({
            status: row.status,
            at: row.at instanceof Date ? row.at : new Date(row.at),
            workerId: row.worker_id,
            reason: row.reason
          }))
        ),
        Effect.orDie,
        Effect.withSpan("RunHistory.events")
      )

    return { find, events } as const
  })
}) {}
