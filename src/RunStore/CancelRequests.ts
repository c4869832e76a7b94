import type * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import type { AuditAction } from "../Audit/AuditLog.js"
import { uuidv7 } from "../Crypto/Ids.js"
import { nowIso } from "../Domain/Time.js"
import type { RunRow } from "../Domain/Run.js"
import type { SetClauses } from "./SetClauses.js"
import type { Ended, Lease, TerminalStatement } from "./Terminal.js"

/**
 * Cancelling a run: ended at once while no worker holds it, else requested
 * (the worker acknowledges by completing it; the deadline moves to the end
 * of the grace period) and answered to the worker's polls.
 */
export const make = (sql: SqlClient.SqlClient, clauses: SetClauses, terminal: TerminalStatement) => {
  const { cancelGraceSeconds, durationUntil } = clauses

  /**
   * A cancel of a run of `environmentId`, as one conditional UPDATE: queued
   * or assigned, it ends `cancelled` at once (with its webhook, leased as
   * `lease` says); claimed or running, `cancel_requested_at` is set and the
   * deadline brought forward to the end of the grace period (the worker
   * acknowledges by completing it, else the supervisor ends it `cancelled`
   * then). The audit row is written in the same statement. Ends nothing
   * when nothing matched: no such run there, already ended, or a cancel
   * already requested (two cancels, a cancel and a complete: the row lock
   * orders them, and the loser's WHERE no longer holds).
   */
  const cancel = (
    runId: string,
    environmentId: string,
    actor: { readonly type: string; readonly id: string | null },
    lease: Lease
  ): Effect.Effect<Ended> =>
    Effect.flatMap(nowIso, (now) => {
      const at = sql`${now}::timestamptz`
      const atOnce = sql`status IN ('queued', 'assigned')`
      return terminal(
        sql<RunRow>`
          UPDATE runs SET cancel_requested_at = ${at},
            status = CASE WHEN ${atOnce} THEN 'cancelled' ELSE status END,
            ended_at = CASE WHEN ${atOnce} THEN ${at} END,
            duration_ms = CASE WHEN ${atOnce} THEN ${durationUntil(at)} END,
            fault_class = CASE WHEN ${atOnce} THEN 'none' ELSE fault_class END,
            deadline_at = CASE WHEN ${atOnce} THEN NULL
              ELSE LEAST(deadline_at, ${at} + ${cancelGraceSeconds}::int * interval '1 second') END
          WHERE id = ${runId} AND environment_id = ${environmentId} AND ended_at IS NULL AND cancel_requested_at IS NULL
          RETURNING *`,
        // Recorded only when it ends the run: a cancel request moves no status.
        "cancelled",
        now,
        { runIds: [runId], ids: [uuidv7()] },
        lease,
        sql`audited AS (
          INSERT INTO audit_log (id, environment_id, actor_type, actor_id, action, target_type, target_id, metadata)
          SELECT ${uuidv7()}, environment_id, ${actor.type}, ${actor.id}::uuid, ${"run.cancelled" satisfies AuditAction},
            'run', id, jsonb_build_object('ended', ended_at IS NOT NULL)
          FROM done)`
      )
    })

  /** The ids of the worker's runs whose cancel was requested and that have not ended (partial index `runs_cancel_requested`). */
  const cancelRequestedOf = (workerId: string): Effect.Effect<ReadonlyArray<string>> =>
    Effect.map(
      sql<{ id: string }>`
        SELECT id FROM runs WHERE worker_id = ${workerId} AND cancel_requested_at IS NOT NULL AND ended_at IS NULL
        ORDER BY id`.pipe(Effect.orDie),
      (rows) => rows.map((row) => row.id)
    )

  return { cancel, cancelRequestedOf } as const
}
