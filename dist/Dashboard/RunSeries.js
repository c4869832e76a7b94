import * as SqlClient from "@effect/sql/SqlClient";
import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
import { NotFound, ValidationError } from "../Domain/Errors.js";
import { Policy } from "../Tenancy/Policy.js";
import { isUuid } from "../Triggers/TriggersRepo.js";
export const maxBuckets = 1000;
const bucketMillis = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };
/** The buckets a query asks for: their starts (UTC, aligned on the epoch) and the window's end. */
export const bucketsOf = (query, nowMs) => {
    const size = bucketMillis[query.bucket ?? "hour"];
    const to = query.to?.getTime() ?? nowMs;
    const from = query.from?.getTime() ?? to - 86_400_000;
    if (!(from < to))
        return { _tag: "Invalid", field: "from", message: "must be before to" };
    // Days are 86,400 s in UTC, so rounding on the epoch gives 00:00 UTC.
    const first = Math.floor(from / size) * size;
    const count = Math.ceil((to - first) / size);
    if (count > maxBuckets) {
        return {
            _tag: "Invalid",
            field: "bucket",
            message: `from/to spans ${count} buckets of a ${query.bucket ?? "hour"}; at most ${maxBuckets}`
        };
    }
    return { _tag: "Buckets", size, to, starts: Array.from({ length: count }, (_, i) => first + i * size) };
};
/**
 * Runs over time for the dashboard. Requests are counted by `created_at`,
 * endings by `ended_at` and `outcome`; both come from an index alone
 * (`runs_created`, `runs_ended`, migration 0007), so the cost follows the
 * rows in the window, not the history. Statuses are compared as text, so a
 * status the state machine gains (`cancelled`) is counted once it exists.
 */
export class RunSeries extends Effect.Service()("Dashboard/RunSeries", {
    effect: Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient;
        const policy = yield* Policy;
        const series = Effect.fn("Dashboard.runSeries")(function* (environmentId, query) {
            if (!isUuid(environmentId))
                return yield* Effect.fail(NotFound.of("environment"));
            yield* policy.requireRole(environmentId, "viewer");
            const buckets = bucketsOf(query, yield* Clock.currentTimeMillis);
            if (buckets._tag === "Invalid")
                return yield* Effect.fail(ValidationError.field(buckets.field, buckets.message));
            const start = new Date(buckets.starts[0]).toISOString();
            const end = new Date(buckets.to).toISOString();
            const stride = `${buckets.size / 1000} seconds`;
            const rows = yield* sql `
        WITH requested AS (
          SELECT date_bin(${stride}::interval, created_at, ${start}::timestamptz) AS b, count(*)::int AS queued
          FROM runs
          WHERE environment_id = ${environmentId} AND created_at >= ${start}::timestamptz AND created_at < ${end}::timestamptz
          GROUP BY 1
        ), ended AS (
          SELECT date_bin(${stride}::interval, ended_at, ${start}::timestamptz) AS b,
            count(*) FILTER (WHERE outcome = 'succeeded')::int AS succeeded,
            count(*) FILTER (WHERE outcome = 'failed')::int AS failed,
            count(*) FILTER (WHERE outcome = 'timed_out')::int AS timed_out,
            count(*) FILTER (WHERE outcome = 'cancelled')::int AS cancelled,
            percentile_disc(0.5) WITHIN GROUP (ORDER BY duration_ms) AS p50,
            percentile_disc(0.95) WITHIN GROUP (ORDER BY duration_ms) AS p95
          FROM runs
          WHERE environment_id = ${environmentId} AND ended_at >= ${start}::timestamptz AND ended_at < ${end}::timestamptz
          GROUP BY 1
        )
        SELECT s.bucket_start, COALESCE(r.queued, 0) AS queued,
          COALESCE(e.succeeded, 0) AS succeeded, COALESCE(e.failed, 0) AS failed,
          COALESCE(e.timed_out, 0) AS timed_out, COALESCE(e.cancelled, 0) AS cancelled, e.p50, e.p95
        FROM unnest(${buckets.starts.map((ms) => new Date(ms).toISOString())}::timestamptz[]) AS s(bucket_start)
        LEFT JOIN requested r ON r.b = s.bucket_start
        LEFT JOIN ended e ON e.b = s.bucket_start
        ORDER BY s.bucket_start`.pipe(Effect.orDie);
            const items = rows.map((row) => ({
                bucketStart: row.bucket_start instanceof Date ? row.bucket_start : new Date(row.bucket_start),
                queued: row.queued,
                succeeded: row.succeeded,
                failed: row.failed,
                timedOut: row.timed_out,
                cancelled: row.cancelled,
                p50DurationMs: row.p50 === null ? null : Number(row.p50),
                p95DurationMs: row.p95 === null ? null : Number(row.p95)
            }));
            return { items };
        }, (effect, environmentId) => Effect.annotateLogs(effect, { environmentId }));
        return { series };
    }),
    dependencies: [Policy.Default]
}) {
}
//# sourceMappingURL=RunSeries.js.map