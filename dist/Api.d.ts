import { HttpApi } from "@effect/platform";
import { ApiKeysApi } from "./ApiKeys/Api.js";
import { AuditApi } from "./Audit/Api.js";
import { AuthApi } from "./Auth/Api.js";
import { BadRequest, InternalError, NotFound, PayloadTooLarge, ServiceUnavailable, Unauthorized, ValidationError } from "./Domain/Errors.js";
import { HealthApi } from "./Health/Api.js";
import { RunsApi } from "./Runs/Api.js";
import { WorkerApi } from "./Scheduler/WorkerApi.js";
import { EnvironmentsApi, WorkspacesApi } from "./Tenancy/Api.js";
import { TriggersApi } from "./Triggers/Api.js";
import { WebhooksApi } from "./Webhooks/Api.js";
import { WorkersApi } from "./Workers/Api.js";
import { DashboardApi } from "./Dashboard/Api.js";
import { McpApi } from "./Mcp/Api.js";
declare const Api_base: HttpApi.HttpApi<"pipeline-trigger-service", typeof WorkspacesApi | typeof EnvironmentsApi | typeof ApiKeysApi | typeof AuditApi | typeof AuthApi | typeof HealthApi | typeof WebhooksApi | typeof RunsApi | typeof TriggersApi | typeof WorkersApi | typeof WorkerApi | typeof DashboardApi | typeof McpApi, ValidationError | BadRequest | Unauthorized | NotFound | PayloadTooLarge | InternalError | ServiceUnavailable | import("@effect/platform/HttpApiError").HttpApiDecodeError, never>;
/**
 * The whole HTTP interface, contract side only: the server, the typed client
 * and the worker SDK are all derived from this definition.
 */
export declare class Api extends Api_base {
}
export {};
//# sourceMappingURL=Api.d.ts.map