import * as SqlClient from "@effect/sql/SqlClient";
import { Readiness } from "./Readiness.js";
export declare const HealthLive: import("effect/Layer").Layer<import("@effect/platform/HttpApiGroup").ApiGroup<"pipeline-trigger-service", "health">, never, SqlClient.SqlClient | Readiness>;
/**
 * The probes at the root as well (`/health/live`, `/health/ready`), where
 * orchestrators and load balancers look by default; same answers as under `/api/v1`.
 */
export declare const rootProbes: import("effect/Layer").Layer<never, never, SqlClient.SqlClient | Readiness>;
//# sourceMappingURL=Http.d.ts.map