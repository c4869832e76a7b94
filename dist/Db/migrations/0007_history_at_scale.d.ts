import * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
/**
 * Reads that stay fast on a long history (docs/benchmarks.md, "History at
 * scale"), without giving up the heap-only updates of 0003: no index names a
 * column that claim, start or a heartbeat changes (`status`, `claimed_at`,
 * `started_at`, `last_heartbeat_at`, `deadline_at`).
 *
 * - `outcome` is the status of a run that has ended, null before: a stored
 *   generated column, so it is indexable. Claim and start change `status` but
 *   leave `outcome` null (unchanged), so their updates stay heap-only; it is
 *   set in the same update as `ended_at`, which writes index entries anyway.
 *   Adding it rewrites the table once.
 * - Listings: open runs (`ended_at IS NULL`, the active statuses) and ended
 *   runs by outcome each have an index in id order, so `status=` never walks
 *   the history; so do a worker's runs and a `from`/`to` window.
 * - `runs_ended` gains the outcome, duration and cost: the time series and the
 *   overview read them from the index alone.
 * - `runs_retry_of`: the `retry_of_run_id` foreign key's ON DELETE SET NULL
 *   (retention deleting an old run) would otherwise scan the table per row.
 * - `run_daily_totals`: a closed UTC day's spend, computed once (the month's
 *   spend would otherwise sum up to a month of runs on every overview).
 * - The audit log by action, and its `run.requested` rows by age (retention).
 */
declare const _default: Effect.Effect<void, import("@effect/sql/SqlError").SqlError, SqlClient.SqlClient>;
export default _default;
//# sourceMappingURL=0007_history_at_scale.d.ts.map