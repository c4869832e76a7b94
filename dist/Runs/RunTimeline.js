import * as Schema from "effect/Schema";
/** Why a run moved: each entry of `GET /runs/{id}/events` names one. */
export const RunEventReason = Schema.Literal("requested", "assigned", "claimed", "started", "completed", "claim_timeout", "heartbeat_timeout", "execution_timeout", "cancelled", "worker_revoked", "released");
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
export const recordRunEvents = (sql, options) => sql `INSERT INTO run_events (run_id, environment_id, status, at, worker_id, reason)
    SELECT id, environment_id, ${options.status ?? sql `status`},
      ${typeof options.at === "string" ? sql `${options.at}::timestamptz` : options.at},
      ${options.workerId ?? sql `worker_id`},
      ${typeof options.reason === "string" ? sql `${options.reason}::text` : options.reason}
    FROM ${options.from}
    ${options.where === undefined ? sql `` : sql `WHERE ${options.where}`}
    ${options.orderBy === undefined ? sql `` : sql `ORDER BY ${options.orderBy}`}`;
//# sourceMappingURL=RunTimeline.js.map