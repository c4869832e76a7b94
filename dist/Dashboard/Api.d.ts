import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform";
import * as Schema from "effect/Schema";
import { Authentication } from "../Auth/Security.js";
import { Forbidden, NotFound } from "../Domain/Errors.js";
declare const Overview_base: Schema.Class<Overview, {
    onlineWorkers: typeof Schema.Int;
    /** Runs created since 00:00 UTC. */
    todaysRuns: typeof Schema.Int;
    /** Succeeded ÷ terminal runs created today × 100, one decimal; null when none ended yet. */
    successRatePct: Schema.NullOr<typeof Schema.Number>;
    /** Sum of `costUsd` of runs that ended this UTC month; "0" when none. */
    monthTokenSpendUsd: typeof Schema.String;
}, Schema.Struct.Encoded<{
    onlineWorkers: typeof Schema.Int;
    /** Runs created since 00:00 UTC. */
    todaysRuns: typeof Schema.Int;
    /** Succeeded ÷ terminal runs created today × 100, one decimal; null when none ended yet. */
    successRatePct: Schema.NullOr<typeof Schema.Number>;
    /** Sum of `costUsd` of runs that ended this UTC month; "0" when none. */
    monthTokenSpendUsd: typeof Schema.String;
}>, never, {
    readonly onlineWorkers: number;
} & {
    readonly todaysRuns: number;
} & {
    readonly monthTokenSpendUsd: string;
} & {
    readonly successRatePct: number | null;
}, {}, {}>;
/**
 * Summary figures of one environment. Days and months are UTC;
 * `monthTokenSpendUsd` is exact decimal text (never a float).
 */
export declare class Overview extends Overview_base {
}
export declare const BucketSize: Schema.Literal<["minute", "hour", "day"]>;
export type BucketSize = typeof BucketSize.Type;
export declare const RunSeriesParams: Schema.Struct<{
    from: Schema.optional<Schema.refine<Date, typeof Schema.DateFromString>>;
    to: Schema.optional<Schema.refine<Date, typeof Schema.DateFromString>>;
    bucket: Schema.optional<Schema.Literal<["minute", "hour", "day"]>>;
}>;
/** One bucket of the time series: what was requested and what ended in it. */
export declare const RunBucket: Schema.Struct<{
    /** The bucket's first instant, UTC, on a whole minute, hour or day. */
    bucketStart: typeof Schema.Date;
    /** Runs requested (entered the queue) in the bucket, retries included. */
    queued: typeof Schema.Int;
    /** Runs that ended in the bucket, by status. */
    succeeded: typeof Schema.Int;
    failed: typeof Schema.Int;
    timedOut: typeof Schema.Int;
    cancelled: typeof Schema.Int;
    /** Duration percentiles of the runs that ended in the bucket (a run's own value, not interpolated); null when none did. */
    p50DurationMs: Schema.NullOr<typeof Schema.Int>;
    p95DurationMs: Schema.NullOr<typeof Schema.Int>;
}>;
export type RunBucket = typeof RunBucket.Type;
declare const DashboardApi_base: HttpApiGroup.HttpApiGroup<"dashboard", HttpApiEndpoint.HttpApiEndpoint<"overview", "GET", {
    readonly envId: string;
}, never, never, never, Overview, Forbidden | NotFound, never, never> | HttpApiEndpoint.HttpApiEndpoint<"runSeries", "GET", {
    readonly envId: string;
}, {
    readonly from?: Date | undefined;
    readonly to?: Date | undefined;
    readonly bucket?: "minute" | "hour" | "day" | undefined;
}, never, never, {
    readonly items: readonly {
        readonly queued: number;
        readonly succeeded: number;
        readonly failed: number;
        readonly cancelled: number;
        readonly bucketStart: Date;
        readonly timedOut: number;
        readonly p50DurationMs: number | null;
        readonly p95DurationMs: number | null;
    }[];
}, Forbidden | NotFound, never, never>, import("../Domain/Errors.js").Unauthorized | Forbidden, Authentication, false>;
export declare class DashboardApi extends DashboardApi_base {
}
export {};
//# sourceMappingURL=Api.d.ts.map