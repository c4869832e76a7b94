import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiScalar from "@effect/platform/HttpApiScalar"
import * as HttpServer from "@effect/platform/HttpServer"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Api } from "./Contract/Api.js"
import { ApiKeys } from "./ApiKeys/ApiKeys.js"
import { ApiKeysLive } from "./ApiKeys/ApiKeysHttp.js"
import { AuditLog } from "./Audit/AuditLog.js"
import { AuditLive } from "./Audit/AuditHttp.js"
import { Policy } from "./Tenancy/Policy.js"
import { Environments } from "./Tenancy/Environments.js"
import { TenancyLive } from "./Tenancy/TenancyHttp.js"
import { Members } from "./Tenancy/Members.js"
import { Workspaces } from "./Tenancy/Workspaces.js"
import { AuthLive } from "./Auth/AuthHttp.js"
import { LoginThrottle } from "./Auth/LoginThrottle.js"
import * as Authentication from "./Auth/Authentication.js"
import { Sessions } from "./Auth/Sessions.js"
import { WorkerTokenTrust } from "./Auth/WorkerTokenTrust.js"
import { Users } from "./Auth/Users.js"
import { SecretBox } from "./Crypto/SecretBox.js"
import { HealthLive, rootProbes } from "./Health/HealthHttp.js"
import { drainOnSignal, Readiness } from "./Health/Readiness.js"
import * as DrainingServer from "./Http/DrainingServer.js"
import * as AppConfig from "./Config/AppConfig.js"
import * as Tuning from "./Config/Tuning.js"
import * as SqlClient from "@effect/sql/SqlClient"
import { nowIso } from "./Db/Time.js"
import { waitingByReason } from "./RunStore/Placement.js"
import * as Tracing from "./Config/Tracing.js"
import * as Database from "./Db/Database.js"
import * as ErrorMiddleware from "./Http/ErrorMiddleware.js"
import { Origins } from "./Http/Origins.js"
import { RunsLive } from "./Runs/RunsHttp.js"
import { RunCancellation } from "./Runs/Cancellation.js"
import { RunReschedule } from "./Runs/Delays.js"
import { RunRequests } from "./Runs/RunRequests.js"
import { RunsRepo } from "./Runs/RunsRepo.js"
import * as SqlRunStore from "./RunStore/SqlRunStore.js"
import { Supervisor } from "./Scheduler/Supervision.js"
import * as Scheduler from "./Scheduler/Scheduler.js"
import { WorkerProtocolLive } from "./WorkerProtocol/WorkerProtocolHttp.js"
import { WorkerProtocol } from "./WorkerProtocol/WorkerProtocol.js"
import { UrlGuard } from "./Webhooks/UrlGuard.js"
import { DeliveriesRepo } from "./Webhooks/DeliveriesRepo.js"
import * as WebhookDelivery from "./Webhooks/DeliveryWorker.js"
import { DeliveryHandoff } from "./Webhooks/Handoff.js"
import { WebhooksLive } from "./Webhooks/WebhooksHttp.js"
import { Redelivery } from "./Webhooks/Redelivery.js"
import { TriggersLive } from "./Triggers/TriggersHttp.js"
import { ConcurrencyPoolsLive } from "./ConcurrencyPools/ConcurrencyPoolsHttp.js"
import { ConcurrencyPools } from "./ConcurrencyPools/ConcurrencyPools.js"
import { ScheduleFiring } from "./Triggers/ScheduleFiring.js"
import { Triggers } from "./Triggers/Triggers.js"
import { TriggersRepo } from "./Triggers/TriggersRepo.js"
import { WorkersLive } from "./Workers/WorkersHttp.js"
import { Workers } from "./Workers/Workers.js"
import { WorkersRepo } from "./Workers/WorkersRepo.js"
import { DashboardLive } from "./Dashboard/DashboardHttp.js"
import { Dashboard } from "./Dashboard/Dashboard.js"
import { RunSeries } from "./Dashboard/RunSeries.js"
import { background as retentionPasses, Retention } from "./Retention/Retention.js"
import * as RetentionConfig from "./Retention/RetentionConfig.js"
import { RunHistory } from "./Runs/RunHistory.js"
import { EventsLive } from "./Events/EventsHttp.js"
import * as WebRoutes from "./Web/Routes.js"
import * as MetricsRoute from "./Observability/MetricsRoute.js"
import * as RequestLog from "./Observability/RequestLog.js"
import * as RouteTemplates from "./Observability/RouteTemplates.js"
import { channelPath } from "./Contract/WorkerChannelRpcs.js"
import * as KeyCheck from "./Config/KeyCheck.js"
import * as JsonBody from "./Http/JsonBody.js"
import * as LeanRequests from "./Http/LeanRequests.js"
import { McpLive } from "./Mcp/McpHttp.js"
import * as McpAuthentication from "./Mcp/McpAuthentication.js"
import * as WorkerChannel from "./WorkerChannel/WorkerChannelHttp.js"
import { RunLogsLive, RunLogsWorkerLive } from "./RunLogs/RunLogsHttp.js"
import * as RunLogs from "./RunLogs/RunLogs.js"
import { BulkActions } from "./BulkActions/BulkActions.js"
import { BulkActionsRepo } from "./BulkActions/BulkActionsRepo.js"
import { BulkActionsLive } from "./BulkActions/BulkActionsHttp.js"
import { BulkActionRunner } from "./BulkActions/Runner.js"
import { RunReplays } from "./Runs/Replays.js"

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
  BulkActionsRepo.Default,
  // One for the whole engine: every statement that creates or moves a run.
  SqlRunStore.layer,
  RunHistory.Default,
  Triggers.Default,
  ConcurrencyPools.Default,
  Workers.Default,
  WorkersRepo.Default,
  Dashboard.Default,
  RunSeries.Default,
  Readiness.Default,
  // One for all: authentication trusts tokens through it, revocation makes it forget them.
  WorkerTokenTrust.Default,
  RunLogs.layerWithRepo
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

/** Bulk actions and the runner that works through them, over replays and cancels as single requests make them. */
const bulkActions = BulkActions.Default.pipe(
  Layer.provideMerge(BulkActionRunner.Default),
  Layer.provideMerge(RunReplays.Default)
)

export const layerBackground = bulkActions.pipe(
  Layer.provideMerge(Layer.mergeAll(RunRequests.Default, RunCancellation.Default, RunReschedule.Default, ScheduleFiring.Default, WorkerProtocol.Default)),
  Layer.provideMerge(Layer.mergeAll(WebhookDelivery.layer, Scheduler.layer, retention)),
  // One handoff for both: terminal transitions hand their webhooks to this instance's delivery loop.
  Layer.provide(DeliveryHandoff.layer)
)

// The server side of the contract's security middleware tags.
const security = Layer.mergeAll(Authentication.layer, Authentication.layerUser, Authentication.layerWorker, McpAuthentication.layer)

export const layerApi = HttpApiBuilder.api(Api).pipe(
  Layer.provide([HealthLive, AuthLive, TenancyLive, ApiKeysLive, AuditLive, TriggersLive, ConcurrencyPoolsLive, WorkersLive, DashboardLive, WebhooksLive, RunsLive, BulkActionsLive, EventsLive, WorkerProtocolLive, RunLogsWorkerLive, RunLogsLive, McpLive]),
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

/** The engine's count of supervised runs, as the metrics route reads it. */
const supervisedRuns = Layer.effect(MetricsRoute.SupervisedRuns, Effect.map(Supervisor, (supervisor) => supervisor.size))

/** Queued runs by wait reason (docs/flow-control.md), as the metrics route reads them. */
const waitingRuns = Layer.effect(
  MetricsRoute.WaitingRuns,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const tuning = yield* Tuning.Tuning
    return Effect.flatMap(nowIso, (now) => waitingByReason(sql, now, tuning)).pipe(Effect.orDie)
  })
)

/**
 * The HTTP application: every endpoint, the OpenAPI document, the docs page,
 * CORS and the error model. Needs an `HttpServer`, a `SqlClient`, `AppConfig` and `Tuning`.
 */
/** A request's route template for logs and metrics: every endpoint of the API, and the paths served beside it. */
export const routeOf = RouteTemplates.make(Api, [...RouteTemplates.extraRoutes, channelPath])

export const layerHttp = HttpApiBuilder.serve((app) => RequestLog.middleware(routeOf)(JsonBody.middleware(app))).pipe(
  Layer.provide(HttpApiScalar.layer({ path: "/docs" })),
  Layer.provide([rootProbes, MetricsRoute.layer.pipe(Layer.provide([supervisedRuns, waitingRuns])), WorkerChannel.layer]),
  Layer.provide(WebRoutes.layer()),
  Layer.provide(HttpApiBuilder.middlewareOpenApi({ path: "/api/v1/openapi.json" })),
  Layer.provide(ErrorMiddleware.layer),
  Layer.provide(cors),
  Layer.provide(layerApi),
  Layer.provide(layerBackground),
  Layer.provide(layerServices),
  // Last, so it wraps the server every piece above is served on.
  Layer.provide(LeanRequests.layer),
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
