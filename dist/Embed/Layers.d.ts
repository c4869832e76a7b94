import * as SqlClient from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import * as Context from "effect/Context";
import * as Layer from "effect/Layer";
import { Notifications } from "../Db/Notifications.js";
import { PipelineTriggersConfig, type PipelineTriggersOptions } from "./Config.js";
import { PipelineTriggers } from "./PipelineTriggers.js";
/** Every service `layer` gives: `PipelineTriggers` plus the domain and scheduler services behind it. */
export type Services = Layer.Layer.Success<typeof core>;
declare const core: Layer.Layer<import("../Auth/Users.js").Users | import("../Webhooks/DeliveriesRepo.js").DeliveriesRepo | import("../Runs/RunHistory.js").RunHistory | import("../Audit/AuditLog.js").AuditLog | import("../Tenancy/Policy.js").Policy | import("../ApiKeys/ApiKeys.js").ApiKeys | import("../Tenancy/Workspaces.js").Workspaces | import("../Tenancy/Environments.js").Environments | import("../Tenancy/Members.js").Members | import("../Config/AppConfig.js").AppConfig | import("../Http/Origins.js").Origins | import("../Auth/LoginThrottle.js").LoginThrottle | import("../Auth/Sessions.js").Sessions | import("../Crypto/SecretBox.js").SecretBox | import("../Health/Readiness.js").Readiness | import("../Runs/RunsRepo.js").RunsRepo | import("../Runs/RunRequests.js").RunRequests | import("../Scheduler/Scheduler.js").Services | import("../Workers/WorkersRepo.js").WorkersRepo | import("../Webhooks/UrlGuard.js").UrlGuard | import("../Triggers/TriggersRepo.js").TriggersRepo | import("../Triggers/Triggers.js").Triggers | import("../Workers/Workers.js").Workers | import("../Dashboard/Dashboard.js").Dashboard | import("../Dashboard/RunSeries.js").RunSeries | PipelineTriggers, SqlError | import("effect/ConfigError").ConfigError | import("../Config/KeyCheck.js").KeyMismatch, SqlClient.SqlClient | Notifications | PipelineTriggersConfig>;
declare const ServiceSql_base: Context.TagClass<ServiceSql, "PipelineTriggers/ServiceSql", SqlClient.SqlClient>;
/**
 * The `SqlClient` our services use, kept under its own tag: on the host's
 * database it sees our schema first, and handing it out as the host's
 * `SqlClient` would make the host's own queries see our tables first too.
 * `layerHttp` reads it from here.
 */
export declare class ServiceSql extends ServiceSql_base {
}
/**
 * The scheduler on the host's own `SqlClient` (a Postgres database) with the
 * config from `PipelineTriggersConfig`. Every table, and the `pts_migrations`
 * bookkeeping, lives in the configured schema (default `pipeline_triggers`).
 * Also outputs `AppConfig` and `Notifications`, so `HttpLive` can be mounted
 * on the same instance.
 */
export declare const layer: Layer.Layer<import("../Auth/Users.js").Users | import("../Webhooks/DeliveriesRepo.js").DeliveriesRepo | import("../Runs/RunHistory.js").RunHistory | Notifications | import("../Audit/AuditLog.js").AuditLog | import("../Tenancy/Policy.js").Policy | import("../ApiKeys/ApiKeys.js").ApiKeys | import("../Tenancy/Workspaces.js").Workspaces | import("../Tenancy/Environments.js").Environments | import("../Tenancy/Members.js").Members | import("../Config/AppConfig.js").AppConfig | import("../Http/Origins.js").Origins | import("../Auth/LoginThrottle.js").LoginThrottle | import("../Auth/Sessions.js").Sessions | import("../Crypto/SecretBox.js").SecretBox | import("../Health/Readiness.js").Readiness | import("../Runs/RunsRepo.js").RunsRepo | import("../Runs/RunRequests.js").RunRequests | import("../Scheduler/Scheduler.js").Services | import("../Workers/WorkersRepo.js").WorkersRepo | import("../Webhooks/UrlGuard.js").UrlGuard | import("../Triggers/TriggersRepo.js").TriggersRepo | import("../Triggers/Triggers.js").Triggers | import("../Workers/Workers.js").Workers | import("../Dashboard/Dashboard.js").Dashboard | import("../Dashboard/RunSeries.js").RunSeries | PipelineTriggers | ServiceSql, SqlError | import("effect/ConfigError").ConfigError | import("../Config/KeyCheck.js").KeyMismatch, SqlClient.SqlClient | PipelineTriggersConfig>;
/** `layer` with `PipelineTriggersConfig.defaults` overridden by `options`. */
export declare const layerWith: (options?: PipelineTriggersOptions) => Layer.Layer<import("../Auth/Users.js").Users | import("../Webhooks/DeliveriesRepo.js").DeliveriesRepo | import("../Runs/RunHistory.js").RunHistory | Notifications | import("../Audit/AuditLog.js").AuditLog | import("../Tenancy/Policy.js").Policy | import("../ApiKeys/ApiKeys.js").ApiKeys | import("../Tenancy/Workspaces.js").Workspaces | import("../Tenancy/Environments.js").Environments | import("../Tenancy/Members.js").Members | import("../Config/AppConfig.js").AppConfig | import("../Http/Origins.js").Origins | import("../Auth/LoginThrottle.js").LoginThrottle | import("../Auth/Sessions.js").Sessions | import("../Crypto/SecretBox.js").SecretBox | import("../Health/Readiness.js").Readiness | import("../Runs/RunsRepo.js").RunsRepo | import("../Runs/RunRequests.js").RunRequests | import("../Scheduler/Scheduler.js").Services | import("../Workers/WorkersRepo.js").WorkersRepo | import("../Webhooks/UrlGuard.js").UrlGuard | import("../Triggers/TriggersRepo.js").TriggersRepo | import("../Triggers/Triggers.js").Triggers | import("../Workers/Workers.js").Workers | import("../Dashboard/Dashboard.js").Dashboard | import("../Dashboard/RunSeries.js").RunSeries | PipelineTriggersConfig | PipelineTriggers | ServiceSql, SqlError | import("effect/ConfigError").ConfigError | import("../Config/KeyCheck.js").KeyMismatch, SqlClient.SqlClient>;
/**
 * The scheduler on its own embedded Postgres (PGlite) in `<dataDir>/pg`, or in
 * memory with `inMemory: true`. Outputs the `SqlClient` too.
 */
export declare const layerEmbedded: (options?: PipelineTriggersOptions & {
    readonly inMemory?: boolean;
}) => Layer.Layer<SqlClient.SqlClient | import("../Auth/Users.js").Users | import("../Webhooks/DeliveriesRepo.js").DeliveriesRepo | import("../Runs/RunHistory.js").RunHistory | Notifications | import("../Audit/AuditLog.js").AuditLog | import("../Tenancy/Policy.js").Policy | import("../ApiKeys/ApiKeys.js").ApiKeys | import("../Tenancy/Workspaces.js").Workspaces | import("../Tenancy/Environments.js").Environments | import("../Tenancy/Members.js").Members | import("../Config/AppConfig.js").AppConfig | import("../Http/Origins.js").Origins | import("../Auth/LoginThrottle.js").LoginThrottle | import("../Auth/Sessions.js").Sessions | import("../Crypto/SecretBox.js").SecretBox | import("../Health/Readiness.js").Readiness | import("../Runs/RunsRepo.js").RunsRepo | import("../Runs/RunRequests.js").RunRequests | import("../Scheduler/Scheduler.js").Services | import("../Workers/WorkersRepo.js").WorkersRepo | import("../Webhooks/UrlGuard.js").UrlGuard | import("../Triggers/TriggersRepo.js").TriggersRepo | import("../Triggers/Triggers.js").Triggers | import("../Workers/Workers.js").Workers | import("../Dashboard/Dashboard.js").Dashboard | import("../Dashboard/RunSeries.js").RunSeries | PipelineTriggersConfig | PipelineTriggers | ServiceSql, SqlError | import("effect/ConfigError").ConfigError | import("../Config/KeyCheck.js").KeyMismatch | import("../Db/DataDirLock.js").DataDirInUse, never>;
/**
 * The HTTP API (every endpoint, the OpenAPI document, `/docs`) for the host's
 * `HttpServer`; provide it with one of the layers above, e.g.
 * `PipelineTriggers.layerHttp.pipe(Layer.provide(NodeHttpServer.layer(...)), Layer.provideMerge(layerEmbedded()))`.
 */
export declare const layerHttp: Layer.Layer<never, SqlError | import("effect/ConfigError").ConfigError | import("../Config/KeyCheck.js").KeyMismatch, Notifications | import("@effect/platform/HttpRouter").HttpRouter.DefaultServices | import("../Config/AppConfig.js").AppConfig | import("@effect/platform/HttpServer").HttpServer | ServiceSql>;
export {};
//# sourceMappingURL=Layers.d.ts.map