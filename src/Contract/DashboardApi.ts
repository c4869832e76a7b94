import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { Authentication } from "./Security.js"
import { Forbidden, NotFound } from "./Domain/ApiErrors.js"
import { pathId } from "./Domain/Uuids.js"
import { Timestamp } from "./Domain/Schemas.js"

/**
 * Summary figures of one environment. Days and months are UTC;
 * `monthTokenSpendUsd` is exact decimal text (never a float).
 */
export class Overview extends Schema.Class<Overview>("DashboardOverview")({
  onlineWorkers: Schema.Int,
  /** Runs created since 00:00 UTC. */
  todaysRuns: Schema.Int,
  /** Of those, runs that ended `expired` (not claimed within their time-to-live). */
  todaysExpiredRuns: Schema.Int,
  /**
   * Succeeded ÷ (succeeded + failed + timed out + expired) runs created today × 100, one decimal;
   * null when none ended yet. Cancelled runs are left out (an operator's choice, not an outcome).
   */
  successRatePct: Schema.NullOr(Schema.Number),
  /** Sum of `costUsd` of runs that ended this UTC month; "0" when none. */
  monthTokenSpendUsd: Schema.String
}) {}

export const BucketSize = Schema.Literal("minute", "hour", "day").annotations({
  message: () => "bucket must be one of minute, hour, day"
})
export type BucketSize = typeof BucketSize.Type

const isoTimestamp = Schema.Date.annotations({ message: () => "must be an ISO 8601 timestamp" })

export const RunSeriesParams = Schema.Struct({
  from: Schema.optional(isoTimestamp),
  to: Schema.optional(isoTimestamp),
  bucket: Schema.optional(BucketSize)
}).annotations({ parseOptions: { errors: "all" } })

/** One bucket of the time series: what was requested and what ended in it. */
export const RunBucket = Schema.Struct({
  /** The bucket's first instant, UTC, on a whole minute, hour or day. */
  bucketStart: Timestamp,
  /** Runs requested (entered the queue) in the bucket, retries included. */
  queued: Schema.Int,
  /** Runs that ended in the bucket, by status. */
  succeeded: Schema.Int,
  failed: Schema.Int,
  timedOut: Schema.Int,
  cancelled: Schema.Int,
  /** Runs that ended `expired`: not claimed within their time-to-live. */
  expired: Schema.Int,
  /** Duration percentiles of the runs that ended in the bucket (a run's own value, not interpolated); null when none did. */
  p50DurationMs: Schema.NullOr(Schema.Int),
  p95DurationMs: Schema.NullOr(Schema.Int)
}).annotations({ identifier: "RunBucket" })
export type RunBucket = typeof RunBucket.Type

const EnvironmentPath = Schema.Struct({ envId: pathId("environment") })

export class DashboardApi extends HttpApiGroup.make("dashboard")
  .add(
    HttpApiEndpoint.get("overview", "/environments/:envId/dashboard/overview")
      .annotate(OpenApi.Summary, "Dashboard figures")
      .annotate(OpenApi.Description, "viewer or higher: online workers, today's runs (UTC), today's success rate in percent, this month's cost.")
      .setPath(EnvironmentPath)
      .addSuccess(Overview)
      .addError(NotFound.wire)
      .addError(Forbidden.wire)
  )
  .add(
    HttpApiEndpoint.get("runSeries", "/environments/:envId/dashboard/runs")
      .annotate(OpenApi.Summary, "Runs over time")
      .annotate(
        OpenApi.Description,
        "viewer or higher. Runs per UTC bucket (`minute`, `hour` or `day`; default `hour`) from `from` to `to` " +
          "(ISO 8601; default the last 24 hours): how many were requested (`queued`), how many ended as each terminal status, " +
          "and the p50/p95 duration of those that ended. The first bucket starts at `from` rounded down to the bucket; " +
          "every bucket is listed, empty ones with zeros. At most 1,000 buckets, else 400."
      )
      .setPath(EnvironmentPath)
      .setUrlParams(RunSeriesParams)
      .addSuccess(Schema.Struct({ items: Schema.Array(RunBucket) }).annotations({ identifier: "RunSeries" }))
      .addError(NotFound.wire)
      .addError(Forbidden.wire)
  )
  .middleware(Authentication)
{}
