import * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
import { NotFound } from "../Domain/Errors.js";
import { Policy } from "../Tenancy/Policy.js";
import type { BucketSize } from "./Api.js";
export declare const maxBuckets = 1000;
export interface SeriesQuery {
    readonly from?: Date | undefined;
    readonly to?: Date | undefined;
    readonly bucket?: BucketSize | undefined;
}
/** The buckets a query asks for: their starts (UTC, aligned on the epoch) and the window's end. */
export declare const bucketsOf: (query: SeriesQuery, nowMs: number) => {
    _tag: "Invalid";
    field: string;
    message: string;
    size?: undefined;
    to?: undefined;
    starts?: undefined;
} | {
    _tag: "Buckets";
    size: number;
    to: number;
    starts: number[];
    field?: undefined;
    message?: undefined;
};
declare const RunSeries_base: Effect.Service.Class<RunSeries, "Dashboard/RunSeries", {
    readonly effect: Effect.Effect<{
        readonly series: (environmentId: string, query: SeriesQuery) => Effect.Effect<{
            items: {
                readonly queued: number;
                readonly succeeded: number;
                readonly failed: number;
                readonly cancelled: number;
                readonly bucketStart: Date;
                readonly timedOut: number;
                readonly p50DurationMs: number | null;
                readonly p95DurationMs: number | null;
            }[];
        }, import("../Domain/Errors.js").Forbidden | NotFound, import("../Auth/Security.js").CurrentActor>;
    }, never, SqlClient.SqlClient | Policy>;
    readonly dependencies: readonly [import("effect/Layer").Layer<Policy, never, SqlClient.SqlClient>];
}>;
/**
 * Runs over time for the dashboard. Requests are counted by `created_at`,
 * endings by `ended_at` and `outcome`; both come from an index alone
 * (`runs_created`, `runs_ended`, migration 0007), so the cost follows the
 * rows in the window, not the history. Statuses are compared as text, so a
 * status the state machine gains (`cancelled`) is counted once it exists.
 */
export declare class RunSeries extends RunSeries_base {
}
export {};
//# sourceMappingURL=RunSeries.d.ts.map