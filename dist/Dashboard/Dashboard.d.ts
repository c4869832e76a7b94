import * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
import { AppConfig } from "../Config/AppConfig.js";
import { NotFound } from "../Domain/Errors.js";
import { Policy } from "../Tenancy/Policy.js";
import { Overview } from "./Api.js";
declare const Dashboard_base: Effect.Service.Class<Dashboard, "Dashboard/Dashboard", {
    readonly effect: Effect.Effect<{
        readonly overview: (environmentId: string) => Effect.Effect<Overview, import("../Domain/Errors.js").Forbidden | NotFound, import("../Auth/Security.js").CurrentActor>;
    }, never, SqlClient.SqlClient | Policy | AppConfig>;
    readonly dependencies: readonly [import("effect/Layer").Layer<Policy, never, SqlClient.SqlClient>];
}>;
/**
 * The dashboard overview, computed in one SQL statement against the
 * database's clock: the day and month boundaries are UTC whatever the
 * session time zone, and `numeric` sums money exactly ("0.1" + "0.2" = "0.3").
 *
 * It reads no more than a day or so of runs however long the history
 * (docs/benchmarks.md, "History at scale"): today's figures come from the
 * `runs_created` index alone, and the month's spend is the stored totals of
 * its closed days plus the runs that ended since. A day is closed an hour
 * after it ends (a run is stamped with its end before its statement commits;
 * an hour is far beyond that and any clock drift between instances); its
 * total is computed by the first overview that needs it and kept in
 * `run_daily_totals` (two instances computing it at once store the same
 * figure, and the second insert does nothing). A closed day's total never
 * changes afterwards: ended runs are never updated, and retention deleting
 * old runs does not take back money that was spent.
 */
export declare class Dashboard extends Dashboard_base {
}
export {};
//# sourceMappingURL=Dashboard.d.ts.map