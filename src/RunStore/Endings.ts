import type * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { uuidv7 } from "../Crypto/Ids.js"
import { nowIso } from "../Domain/Time.js"
import type { FaultClass, RunRow } from "../Domain/Run.js"
import { recordRunEvents } from "./RunEvents.js"
import type { SetClauses } from "./SetClauses.js"
import type { Ended, Lease, TerminalStatement } from "./Terminal.js"

export interface Completion {
  readonly status: "succeeded" | "failed"
  readonly shortMessage: string | null
  readonly errorMessage: string | null
  readonly costUsd: string | null
  readonly faultClass: FaultClass
}

/**
 * A run ends: completed by its worker, timed out by the supervisor (one run
 * with its follow-up, or many bare ones grouped), or timed out at once when
 * its worker is revoked. Each is one conditional UPDATE; those with a
 * follow-up go through the terminal statement (`Terminal`), their outbox
 * rows leased as `lease` says.
 */
export const make = (sql: SqlClient.SqlClient, clauses: SetClauses, terminal: TerminalStatement) => {
  const { completedSet, timedOutSet, timeoutReason } = clauses

  /**
   * Completes several of the worker's runs in one statement (the batched
   * complete, and grouped single completes). Answers the runs it ended; a
   * run not the worker's, in the wrong state or past its deadline is left out.
   */
  const completeMany = (
    workerId: string,
    items: ReadonlyArray<{ readonly runId: string; readonly completion: Completion }>,
    lease: Lease
  ): Effect.Effect<Ended> =>
    Effect.flatMap(nowIso, (now) => {
      const runIds = items.map((item) => item.runId)
      const column = <A>(f: (c: Completion) => A) => items.map((item) => f(item.completion))
      return terminal(
        sql<RunRow>`
          UPDATE runs SET ${completedSet(now)},
            short_message = i.short_message, error_message = i.error_message, cost_usd = i.cost_usd::numeric,
            -- A complete after a cancel request is the worker's acknowledgement: cancelled, whatever it reports.
            status = CASE WHEN runs.cancel_requested_at IS NULL THEN i.status ELSE 'cancelled' END,
            fault_class = CASE WHEN runs.cancel_requested_at IS NULL THEN i.fault_class ELSE 'none' END
          FROM unnest(${runIds}::uuid[], ${column((c) => c.status)}::text[], ${column((c) => c.shortMessage)}::text[],
                      ${column((c) => c.errorMessage)}::text[], ${column((c) => c.costUsd)}::text[],
                      ${column((c) => c.faultClass)}::text[])
            AS i(id, status, short_message, error_message, cost_usd, fault_class)
          WHERE runs.id = i.id AND runs.worker_id = ${workerId} AND runs.status IN ('claimed', 'running')
            AND runs.deadline_at > ${now}::timestamptz
          RETURNING runs.*`,
        sql`CASE WHEN status = 'cancelled' THEN 'cancelled' ELSE 'completed' END`,
        now,
        { runIds, ids: runIds.map(() => uuidv7()) },
        lease
      )
    })

  /**
   * Heartbeat or execution deadline passed: `timed_out`, `client` when the
   * run was running past its timeoutSeconds, else `infra` (the worker went
   * silent). Ends nothing when the deadline moved or another instance won.
   * With its follow-up in the same statement (the retry, the webhook);
   * runs with neither end through the lighter `timeOutMany`. `at`: when the
   * supervisor saw the deadline pass (ms), recorded as the run's end; by
   * default the clock's now.
   */
  const timeOut = (runId: string, at: number | undefined, lease: Lease): Effect.Effect<Ended> =>
    Effect.flatMap(at === undefined ? nowIso : Effect.succeed(new Date(at).toISOString()), (now) =>
      terminal(
        sql<RunRow>`
          UPDATE runs SET ${timedOutSet(sql`${now}::timestamptz`)}
          WHERE id = ${runId} AND status IN ('claimed', 'running') AND deadline_at <= ${now}::timestamptz
          RETURNING *`,
        timeoutReason,
        now,
        { runIds: [runId], ids: [uuidv7()] },
        lease
      ))

  /**
   * `timeOut` for runs with no follow-up (no retries left, no webhook, as
   * the caller read from each run's snapshot): the bare UPDATE, for several
   * runs in one statement (many runs time out at once when a fleet of
   * workers goes silent, and the supervisor groups them), each recorded as
   * ended at its own `at` (ms). Answers the runs it ended; a run whose
   * deadline moved or that another instance ended is left out.
   */
  const timeOutMany = (items: ReadonlyArray<{ readonly runId: string; readonly at: number }>): Effect.Effect<ReadonlyArray<RunRow>> =>
    sql<RunRow>`
        WITH done AS (
          UPDATE runs SET ${timedOutSet(sql`i.at`)}
          FROM unnest(${items.map((item) => item.runId)}::uuid[], ${items.map((item) => new Date(item.at).toISOString())}::timestamptz[]) AS i(id, at)
          WHERE runs.id = i.id AND runs.status IN ('claimed', 'running') AND runs.deadline_at <= i.at
          RETURNING runs.*
        ),
        logged AS (${recordRunEvents(sql, { from: sql`done`, reason: timeoutReason, at: sql`done.ended_at` })})
        SELECT * FROM done`.pipe(Effect.orDie)

  /** The ids of the worker's claimed and running runs: what its revocation times out. */
  const heldBy = (workerId: string): Effect.Effect<ReadonlyArray<string>> =>
    Effect.map(
      sql<{ id: string }>`
        SELECT id FROM runs WHERE worker_id = ${workerId} AND ended_at IS NULL AND status IN ('claimed', 'running')`.pipe(
        Effect.orDie
      ),
      (rows) => rows.map((row) => row.id)
    )

  /**
   * The worker was revoked: its claimed and running runs (`runIds`, read
   * by `heldBy`) end `timed_out` with faultClass `infra` at once, with the
   * follow-up of any time-out (the retry when retries are left, the
   * webhook). A run that ended meanwhile is left out.
   */
  const timeOutRevoked = (workerId: string, runIds: ReadonlyArray<string>, lease: Lease): Effect.Effect<Ended> =>
    Effect.flatMap(nowIso, (now) =>
      terminal(
        sql<RunRow>`
          UPDATE runs SET ${timedOutSet(sql`${now}::timestamptz`, "infra")}
          WHERE id = ANY(${runIds}::uuid[]) AND worker_id = ${workerId} AND status IN ('claimed', 'running')
          RETURNING *`,
        "worker_revoked",
        now,
        { runIds, ids: runIds.map(() => uuidv7()) },
        lease
      ))

  return { completeMany, timeOut, timeOutMany, heldBy, timeOutRevoked } as const
}
