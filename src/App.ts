import { HttpApiBuilder, HttpApiScalar, HttpServer } from "@effect/platform"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Api } from "./Api.js"
import { ApiKeys } from "./ApiKeys/ApiKeys.js"
import { ApiKeysLive } from "./ApiKeys/Http.js"
import { AuditLog } from "./Audit/AuditLog.js"
import { AuditLive } from "./Audit/Http.js"
import { Policy } from "./Tenancy/Policy.js"
import { Environments } from "./Tenancy/Environments.js"
import { TenancyLive } from "./Tenancy/Http.js"
import { Members } from "./Tenancy/Members.js"
import { Workspaces } from "./Tenancy/Workspaces.js"
import { AuthLive } from "./Auth/Http.js"
import { LoginThrottle } from "./Auth/LoginThrottle.js"
import * as Authentication from "./Auth/Authentication.js"
import { Sessions } from "./Auth/Sessions.js"
import { WorkerTokenTrust } from "./Auth/WorkerTokenTrust.js"
import { Users } from "./Auth/Users.js"
import { SecretBox } from "./Crypto/SecretBox.js"
import { HealthLive, rootProbes } from "./Health/Http.js"
import { drainOnSignal, Readiness } from "./Health/Readiness.js"
import * as DrainingServer from "./Http/DrainingServer.js"
import * as AppConfig from "./Config/AppConfig.js"
import * as Tuning from "./Config/Tuning.js"
import * as Tracing from "./Config/Tracing.js"
import * as Database from "./Db/Database.js"
import * as ErrorMiddleware from "./Http/ErrorMiddleware.js"
import { Origins } from "./Http/Origins.js"
import { RunsLive } from "./Runs/Http.js"
import { RunCancellation } from "./Runs/Cancellation.js"
import { RunRequests } from "./Runs/RunRequests.js"
import { RunsRepo } from "./Runs/RunsRepo.js"
import { RunStore } from "./RunStore/RunStore.js"
import * as Scheduler from "./Scheduler/Scheduler.js"
import { WorkerProtocolLive } from "./WorkerProtocol/Http.js"
import { WorkerProtocol } from "./WorkerProtocol/WorkerProtocol.js"
import { UrlGuard } from "./Webhooks/UrlGuard.js"
import { DeliveriesRepo } from "./Webhooks/DeliveriesRepo.js"
import * as WebhookDelivery from "./Webhooks/DeliveryWorker.js"
import { DeliveryHandoff } from "./Webhooks/Handoff.js"
import { WebhooksLive } from "./Webhooks/Http.js"
import { Redelivery } from "./Webhooks/Redelivery.js"
import { TriggersLive } from "./Triggers/Http.js"
import { ScheduleFiring } from "./Triggers/ScheduleFiring.js"
import { Triggers } from "./Triggers/Triggers.js"
import { TriggersRepo } from "./Triggers/TriggersRepo.js"
import { WorkersLive } from "./Workers/Http.js"
import { Workers } from "./Workers/Workers.js"
import { WorkersRepo } from "./Workers/WorkersRepo.js"
import { DashboardLive } from "./Dashboard/Http.js"
import { Dashboard } from "./Dashboard/Dashboard.js"
import { RunSeries } from "./Dashboard/RunSeries.js"
import { background as retentionPasses, Retention } from "./Retention/Retention.js"
import * as RetentionConfig from "./Retention/RetentionConfig.js"
import { RunHistory } from "./Runs/RunHistory.js"
import { EventsLive } from "./Events/Http.js"
import * as WebRoutes from "./Web/Routes.js"
import * as MetricsRoute from "./Observability/MetricsRoute.js"
import * as RequestLog from "./Observability/RequestLog.js"
import * as KeyCheck from "./Config/KeyCheck.js"
import * as JsonBody from "./Http/JsonBody.js"
import { McpLive } from "./Mcp/Http.js"
import * as McpAuthentication from "./Mcp/Authentication.js"
import * as WorkerChannel from "./WorkerChannel/Http.js"

/** Domain services; they need a `SqlClient`, `AppConfig` and `Tuning` from the host. */
export const layerServices = Layer.mergeAll(
  Users.Default,
  Sessions.Default,
  LoginThrottle.Default,
  SecretBox.Default,
  Policy.Default,
  AuditLog.Default,
  Workspaces.Default,
  Environments.Default,
  Members.Default,
  UrlGuard.Default,
  DeliveriesRepo.Default,
  Redelivery.Default,
  TriggersRepo.Default,
  RunsRepo.Default,
  // One for the whole engine: every statement that creates or moves a run.
  RunStore.Default,
  RunHistory.Default,
  Triggers.Default,
  Workers.Default,
  WorkersRepo.Default,
  Dashboard.Default,
  RunSeries.Default,
  Readiness.Default,
  // One for all: authentication trusts tokens through it, revocation makes it forget them.
  WorkerTokenTrust.Default
).pipe(
  // Before anything signs or seals: refuse to run with keys other instances do not share.
  Layer.tap((context) => KeyCheck.check.pipe(Effect.provide(context))),
  // One ApiKeys for all: it holds the verified-key cache that deleting a key or an environment clears.
  Layer.provideMerge(ApiKeys.Default),
  Layer.provideMerge(Origins.Default)
)

/**
 * Background fibers that run beside the HTTP server (run supervision, webhook
 * delivery, scheduled triggers). Each is a scoped layer: it starts with the app and is interrupted
 * when the app's scope closes.
 */
/** Deletes history older than `RUN_RETENTION_DAYS` (when set), in small batches on a fiber of its own. */
const retention = retentionPasses.pipe(
  Layer.provide(Retention.Default),
  Layer.provide(RetentionConfig.layer)
)

export const layerBackground = Layer.mergeAll(RunRequests.Default, RunCancellation.Default, ScheduleFiring.Default, WorkerProtocol.Default).pipe(
  Layer.provideMerge(Layer.mergeAll(WebhookDelivery.layer, Scheduler.layer, retention)),
  // One handoff for both: terminal transitions hand their webhooks to this instance's delivery loop.
  Layer.provide(DeliveryHandoff.layer)
)

// The server side of the contract's security middleware tags.
const security = Layer.mergeAll(Authentication.layer, Authentication.layerUser, Authentication.layerWorker, McpAuthentication.layer)

export const layerApi = HttpApiBuilder.api(Api).pipe(
  Layer.provide([HealthLive, AuthLive, TenancyLive, ApiKeysLive, AuditLive, TriggersLive, WorkersLive, DashboardLive, WebhooksLive, RunsLive, EventsLive, WorkerProtocolLive, McpLive]),
  Layer.provide(security)
)

const cors = Layer.unwrapEffect(
  Effect.map(Origins, (origins) =>
    HttpApiBuilder.middlewareCors({
      allowedOrigins: (origin) => origins.isAllowed(origin),
      credentials: true,
      allowedMethods: ["GET", "POST", "PATCH", "PUT", "DELETE", "OPTIONS"],
      allowedHeaders: ["content-type", "authorization", "idempotency-key", "mcp-protocol-version"],
      maxAge: 600
    }))
)

/**
 * The HTTP application: every endpoint, the OpenAPI document, the docs page,
 * CORS and the error model. Needs an `HttpServer`, a `SqlClient`, `AppConfig` and `Tuning`.
 */
export const layerHttp = HttpApiBuilder.serve((app) => RequestLog.middleware()(JsonBody.middleware(app))).pipe(
  Layer.provide(HttpApiScalar.layer({ path: "/docs" })),
  Layer.provide([rootProbes, MetricsRoute.layer, WorkerChannel.layer]),
  Layer.provide(WebRoutes.layer()),
  Layer.provide(HttpApiBuilder.middlewareOpenApi({ path: "/api/v1/openapi.json" })),
  Layer.provide(ErrorMiddleware.layer),
  Layer.provide(cors),
  Layer.provide(layerApi),
  Layer.provide(layerBackground),
  Layer.provide(layerServices),
  HttpServer.withLogAddress
)

/**
 * The service as one process runs it (`npm start` runs one or several, see
 * `Processes/Launch`): the HTTP application on the draining server, the
 * database from the environment, telemetry, the shutdown deadline. The drain
 * hook is built after the server, so on shutdown it is released first (see `drainOnSignal`).
 */
export const layer = drainOnSignal.pipe(
  Layer.provide(layerHttp),
  Layer.provide(DrainingServer.layer),
  Layer.provide(Database.layer),
  Layer.provide(Readiness.Default),
  Layer.merge(DrainingServer.deadline),
  Layer.provide(AppConfig.layer),
  Layer.provide(Tuning.layerFromEnv()),
  Layer.provide(Tracing.layer)
)
