import * as Layer from "effect/Layer";
import { Origins } from "../Http/Origins.js";
/**
 * `POST /api/v1/mcp`: one JSON-RPC message (or, for 2025-03-26 clients, a
 * batch) per request, every answer as JSON; no sessions, no SSE. An unreadable
 * message answers 400 with a JSON-RPC error, as the official SDK's server does;
 * a readable one answers 200 (its result or JSON-RPC error) or, when it needs
 * no answer (notifications), 202.
 */
export declare const McpLive: Layer.Layer<import("@effect/platform/HttpApiGroup").ApiGroup<"pipeline-trigger-service", "mcp">, never, import("@effect/sql/SqlClient").SqlClient | import("./Api.js").McpAuthentication | import("../Tenancy/Policy.js").Policy | Origins | import("../Scheduler/RunEvents.js").RunEvents | import("../Runs/RunsRepo.js").RunsRepo | import("../Runs/RunRequests.js").RunRequests | import("../Triggers/TriggersRepo.js").TriggersRepo>;
//# sourceMappingURL=Http.d.ts.map