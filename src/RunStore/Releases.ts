import type * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import type { TuningShape } from "../Config/Tuning.js"
import { nowIso } from "../Domain/Time.js"
import { recordRunEvents } from "./RunEvents.js"

/**
 * Assigned runs going back to `queued` (a claim deadline passed, the worker
 * went offline or was revoked), and a claim undone back to `assigned`. Each
 * is a conditional UPDATE on the run's state, so a run that moved on
 * meanwhile is left alone.
 */
export const make = (sql: SqlClient.SqlClient, config: TuningShape) => {
  /** Claim timeout: an assigned run past its deadline goes back to `queued`; answers its environment (none when it moved on). */
  const releaseExpired = (runId: string): Effect.Effect<ReadonlyArray<{ readonly environment_id: string }>> =>
    Effect.gen(function*() {
      const now = yield* nowIso
      // The timeline names the worker that let the claim deadline pass (read
      // from the row as it was, through the self-join).
      return yield* sql<{ environment_id: string }>`
          WITH released AS (
            UPDATE runs SET status = 'queued', worker_id = NULL, assigned_at = NULL, deadline_at = NULL
            FROM runs old
            WHERE runs.id = ${runId} AND old.id = runs.id AND runs.status = 'assigned' AND runs.deadline_at <= ${now}::timestamptz
            RETURNING runs.id, runs.environment_id, runs.status, old.worker_id AS worker_id
          ),
          logged AS (${recordRunEvents(sql, { from: sql`released`, reason: "claim_timeout", at: now })})
          SELECT environment_id FROM released`
    }).pipe(Effect.orDie)

  /** Runs assigned to workers that went offline go back to `queued`; answers them. */
  const releaseOffline: Effect.Effect<ReadonlyArray<{ readonly id: string; readonly environment_id: string }>> = Effect.gen(function*() {
    const now = yield* nowIso
    return yield* sql<{ id: string; environment_id: string }>`
        WITH released AS (
          UPDATE runs r SET status = 'queued', worker_id = NULL, assigned_at = NULL, deadline_at = NULL
          FROM workers w
          WHERE r.worker_id = w.id AND r.ended_at IS NULL AND r.status = 'assigned'
            AND w.last_seen_at <= ${now}::timestamptz - ${config.workerOfflineAfterSeconds}::int * interval '1 second'
          RETURNING r.id, r.environment_id, r.status, w.id AS worker_id
        ),
        logged AS (${recordRunEvents(sql, { from: sql`released`, reason: "released", at: now })})
        SELECT id, environment_id FROM released`
  }).pipe(Effect.orDie)

  /** A revoked worker's assigned runs go back to `queued`; answers them. */
  const releaseWorker = (workerId: string): Effect.Effect<ReadonlyArray<{ readonly id: string; readonly environment_id: string }>> =>
    Effect.gen(function*() {
      const now = yield* nowIso
      // The timeline names the worker the run was taken from.
      return yield* sql<{ id: string; environment_id: string }>`
          WITH released AS (
            UPDATE runs SET status = 'queued', worker_id = NULL, assigned_at = NULL, deadline_at = NULL
            WHERE worker_id = ${workerId} AND ended_at IS NULL AND status = 'assigned'
            RETURNING id, environment_id, status
          ),
          logged AS (${recordRunEvents(sql, { from: sql`released`, reason: "released", at: now, workerId: sql`${workerId}::uuid` })})
          SELECT id, environment_id FROM released`
    }).pipe(Effect.orDie)

  /**
   * A run claimed in its creating statement for a poll that went away
   * before it could be handed over: back to `assigned` to that worker, as
   * if the claim had never happened (its next poll takes it). Answers the
   * new claim deadline, or nothing when the run has moved on meanwhile.
   */
  const unclaim = (
    runId: string,
    workerId: string
  ): Effect.Effect<ReadonlyArray<{ readonly deadline_at: Date; readonly environment_id: string }>> =>
    Effect.gen(function*() {
      const now = yield* nowIso
      // On the timeline the run is assigned to the worker again.
      return yield* sql<{ deadline_at: Date; environment_id: string }>`
          WITH moved AS (
            UPDATE runs SET status = 'assigned', claimed_at = NULL,
              deadline_at = ${now}::timestamptz + ${config.claimTimeoutSeconds}::int * interval '1 second'
            WHERE id = ${runId} AND worker_id = ${workerId} AND status = 'claimed'
            RETURNING *
          ),
          logged AS (${recordRunEvents(sql, { from: sql`moved`, reason: "assigned", at: now })})
          SELECT deadline_at, environment_id FROM moved`
    }).pipe(Effect.orDie)

  return { releaseExpired, releaseOffline, releaseWorker, unclaim } as const
}
