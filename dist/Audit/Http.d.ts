import * as SqlClient from "@effect/sql/SqlClient";
import { Policy } from "../Tenancy/Policy.js";
export declare const AuditLive: import("effect/Layer").Layer<import("@effect/platform/HttpApiGroup").ApiGroup<"pipeline-trigger-service", "audit">, never, import("../Auth/Security.js").Authentication | SqlClient.SqlClient | Policy>;
//# sourceMappingURL=Http.d.ts.map