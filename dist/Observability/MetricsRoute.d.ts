import * as SqlClient from "@effect/sql/SqlClient";
import { Supervisor } from "../Scheduler/Supervisor.js";
/**
 * `GET /metrics` (and `/api/v1/metrics`): the Prometheus exposition, behind
 * `Authorization: Bearer <METRICS_TOKEN>` when that is set. With
 * `METRICS_ENABLED=false` nothing is recorded and the route answers 404.
 */
export declare const layer: import("effect/Layer").Layer<never, import("effect/ConfigError").ConfigError, SqlClient.SqlClient | Supervisor>;
//# sourceMappingURL=MetricsRoute.d.ts.map