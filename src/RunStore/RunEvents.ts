import type * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"
import type { RunEventReason } from "../Domain/Run.js"

/**
 * Records run transitions in `run_events`, as a fragment to put in the SAME
 * statement as the transition (a data-modifying CTE always runs, referenced
 * or not), so the timeline commits or rolls back with it:
 *
 *   sql`WITH moved AS (
 *         UPDATE runs SET status = 'cancelled', ... WHERE id = ${runId} AND ... RETURNING *
 *       ), logged AS (${recordRunEvents(sql, { from: sql`moved`, reason: "cancelled", at: now })})
 *       SELECT * FROM moved`
 *
 * `from` names a CTE or subquery with the runs' `id`, `environment_id`,
 * `status` and `worker_id` AFTER the transition (`RETURNING *` has them).
 * `at` is an ISO timestamp or a timestamptz fragment (`sql\`i.at\``);
 * `reason` a literal or an SQL expression answering one; `workerId` overrides
 * the worker recorded (e.g. the worker a released run was taken from).
 * Live subscribers (the SSE stream) read new rows of `run_events` by
 * themselves; nothing else is needed for them to see the transition.
 */
export const recordRunEvents = (
  sql: SqlClient.SqlClient,
  options: {
    readonly from: Statement.Fragment
    readonly reason: RunEventReason | Statement.Fragment
    readonly at: string | Statement.Fragment
    readonly workerId?: Statement.Fragment | undefined
    /** Overrides the status recorded (one row of `from` recorded as several steps). */
    readonly status?: Statement.Fragment | undefined
    /** Only rows matching this condition (on `from`'s columns). */
    readonly where?: Statement.Fragment | undefined
    /** The order ids are taken in (several steps of one run in one statement). */
    readonly orderBy?: Statement.Fragment | undefined
  }
): Statement.Statement<never> =>
  sql`INSERT INTO run_events (run_id, environment_id, status, at, worker_id, reason)
    SELECT id, environment_id, ${options.status ?? sql`status`},
      ${typeof options.at === "string" ? sql`${options.at}::timestamptz` : options.at},
      ${options.workerId ?? sql`worker_id`},
      ${typeof options.reason === "string" ? sql`${options.reason}::text` : options.reason}
    FROM ${options.from}
    ${options.where === undefined ? sql`` : sql`WHERE ${options.where}`}
    ${options.orderBy === undefined ? sql`` : sql`ORDER BY ${options.orderBy}`}`
