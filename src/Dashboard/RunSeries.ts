import * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { ValidationError } from "../Contract/Domain/ApiErrors.js"
import { Policy } from "../Tenancy/Policy.js"
import type { BucketSize, RunBucket } from "../Contract/DashboardApi.js"

export const maxBuckets = 1000

const bucketMillis: Record<BucketSize, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 }

export interface SeriesQuery {
  readonly from?: Date | undefined
  readonly to?: Date | undefined
  readonly bucket?: BucketSize | undefined
}

/** The buckets a query asks for: their starts (UTC, aligned on the epoch) and the window's end. */
export const bucketsOf = (query: SeriesQuery, nowMs: number) => {
  const size = bucketMillis[query.bucket ?? "hour"]
  const to = query.to?.getTime() ?? nowMs
  const from = query.from?.getTime() ?? to - 86_400_000
  if (!(from < to)) return { _tag: "Invalid" as const, field: "from", message: "must be before to" }
  // Days are 86,400 s in UTC, so rounding on the epoch gives 00:00 UTC.
  const first = Math.floor(from / size) * size
  const count = Math.ceil((to - first) / size)
  if (count > maxBuckets) {
    return {
      _tag: "Invalid" as const,
      field: "bucket",
      message: `from/to spans ${count} buckets of a ${query.bucket ?? "hour"}; at most ${maxBuckets}`
    }
  }
  return { _tag: "Buckets" as const, size, to, starts: Array.from({ length: count }, (_, i) => first + i * size) }
}

interface BucketRow {
  readonly bucket_start: Date
  readonly queued: number
  readonly succeeded: number
  readonly failed: number
  readonly timed_out: number
  readonly cancelled: number
  readonly expired: number
  readonly p50: string | number | null
  readonly p95: string | number | null
}

/** A bucket closes an hour after it ends: far beyond a run's end stamp and its commit, or clock drift between instances. */
const closedAfterMillis = 3_600_000

/** Hour and day buckets are kept once closed; a window of minutes is at most 1,000 minutes of runs, read as is. */
const keptSizes: ReadonlySet<number> = new Set([bucketMillis.hour, bucketMillis.day])

const toBucket = (row: BucketRow): RunBucket => ({
  bucketStart: row.bucket_start instanceof Date ? row.bucket_start : new Date(row.bucket_start),
  queued: row.queued,
  succeeded: row.succeeded,
  failed: row.failed,
  timedOut: row.timed_out,
  cancelled: row.cancelled,
  expired: row.expired,
  p50DurationMs: row.p50 === null ? null : Number(row.p50),
  p95DurationMs: row.p95 === null ? null : Number(row.p95)
})

/**
 * Runs over time for the dashboard. Requests are counted by `created_at`,
 * endings by `ended_at` and `outcome`; both come from an index alone
 * (`runs_created`, `runs_ended`, migration 0007), so the cost follows the
 * rows in the window, not the history. Statuses are compared as text, so a
 * status the state machine gains (`cancelled`, `expired`) is counted once it exists.
 *
 * A closed hour or day bucket is computed once and kept in
 * `run_series_buckets` (migration 0011): its figures count only runs created
 * or ended inside it, which never change afterwards, so 30 days by day read 30
 * stored rows plus the open day instead of a month of runs. Like the
 * overview's daily totals, a kept bucket outlives retention deleting its
 * runs. Two instances computing one bucket at once store the same figures;
 * the second insert does nothing.
 */
export class RunSeries extends Effect.Service<RunSeries>()("Dashboard/RunSeries", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const policy = yield* Policy

    /** The buckets starting at `starts` (ascending, `size` apart), over runs in [first start, `endMs`). */
    const compute = (environmentId: string, size: number, starts: ReadonlyArray<number>, endMs: number) => {
      const start = new Date(starts[0]!).toISOString()
      const end = new Date(endMs).toISOString()
      const stride = `${size / 1000} seconds`
      return sql<BucketRow>`
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
            count(*) FILTER (WHERE outcome = 'expired')::int AS expired,
            percentile_disc(0.5) WITHIN GROUP (ORDER BY duration_ms) AS p50,
            percentile_disc(0.95) WITHIN GROUP (ORDER BY duration_ms) AS p95
          FROM runs
          WHERE environment_id = ${environmentId} AND ended_at >= ${start}::timestamptz AND ended_at < ${end}::timestamptz
          GROUP BY 1
        )
        SELECT s.bucket_start, COALESCE(r.queued, 0) AS queued,
          COALESCE(e.succeeded, 0) AS succeeded, COALESCE(e.failed, 0) AS failed,
          COALESCE(e.timed_out, 0) AS timed_out, COALESCE(e.cancelled, 0) AS cancelled,
          COALESCE(e.expired, 0) AS expired, e.p50, e.p95
        FROM unnest(${starts.map((ms) => new Date(ms).toISOString())}::timestamptz[]) AS s(bucket_start)
        LEFT JOIN requested r ON r.b = s.bucket_start
        LEFT JOIN ended e ON e.b = s.bucket_start
        ORDER BY s.bucket_start`.pipe(Effect.map((rows) => rows.map(toBucket)))
    }

    /** The closed buckets at `starts`: stored ones read, missing ones computed (from their first to their last) and stored. */
    const closed = (environmentId: string, size: number, starts: ReadonlyArray<number>) =>
      Effect.gen(function*() {
        const first = new Date(starts[0]!).toISOString()
        const end = new Date(starts[starts.length - 1]! + size).toISOString()
        const stored = yield* sql<BucketRow>`
          SELECT bucket_start, queued, succeeded, failed, timed_out, cancelled, expired, p50_ms AS p50, p95_ms AS p95
          FROM run_series_buckets
          WHERE environment_id = ${environmentId} AND bucket_seconds = ${size / 1000}
            AND bucket_start >= ${first}::timestamptz AND bucket_start < ${end}::timestamptz`
        const found = new Map(stored.map((row) => [toBucket(row).bucketStart.getTime(), toBucket(row)]))
        const missing = starts.filter((ms) => !found.has(ms))
        if (missing.length > 0) {
          const computed = (yield* compute(environmentId, size, missing.length === 1 ? missing : rangeOf(missing, size), missing[missing.length - 1]! + size))
            .filter((bucket) => !found.has(bucket.bucketStart.getTime()))
          yield* sql`
            INSERT INTO run_series_buckets ${
            sql.insert(computed.map((b) => ({
              environment_id: environmentId,
              bucket_seconds: size / 1000,
              bucket_start: b.bucketStart.toISOString(),
              queued: b.queued,
              succeeded: b.succeeded,
              failed: b.failed,
              timed_out: b.timedOut,
              cancelled: b.cancelled,
              expired: b.expired,
              p50_ms: b.p50DurationMs,
              p95_ms: b.p95DurationMs
            })))
          } ON CONFLICT DO NOTHING`
          for (const bucket of computed) found.set(bucket.bucketStart.getTime(), bucket)
        }
        return starts.map((ms) => found.get(ms)!)
      })

    const series = Effect.fn("Dashboard.runSeries")(function*(environmentId: string, query: SeriesQuery) {
      yield* policy.requireRole(environmentId, "viewer")
      const nowMs = yield* Clock.currentTimeMillis
      const buckets = bucketsOf(query, nowMs)
      if (buckets._tag === "Invalid") return yield* Effect.fail(ValidationError.field(buckets.field, buckets.message))
      const { size, starts, to } = buckets
      // Closed: whole inside the window and ended more than an hour ago.
      const isClosed = (ms: number) => keptSizes.has(size) && ms + size <= to && ms + size <= nowMs - closedAfterMillis
      const closedStarts = starts.filter(isClosed)
      const openStarts = starts.filter((ms) => !isClosed(ms))
      const kept = closedStarts.length === 0 ? [] : yield* closed(environmentId, size, closedStarts)
      const open = openStarts.length === 0 ? [] : yield* compute(environmentId, size, openStarts, to)
      // Closed buckets come first: a bucket only closes after every earlier one has.
      return { items: [...kept, ...open] }
    }, (effect, environmentId) => Effect.annotateLogs(effect, { environmentId }))

    return { series: (environmentId: string, query: SeriesQuery) => series(environmentId, query).pipe(Effect.catchTag("SqlError", Effect.die)) } as const
  }),
  dependencies: [Policy.Default]
}) {}

/** Every bucket start from the first of `starts` to the last, `size` apart (the missing ones are rarely scattered). */
const rangeOf = (starts: ReadonlyArray<number>, size: number): ReadonlyArray<number> =>
  Array.from({ length: (starts[starts.length - 1]! - starts[0]!) / size + 1 }, (_, i) => starts[0]! + i * size)
