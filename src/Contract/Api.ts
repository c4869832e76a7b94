import * as HttpApi from "@effect/platform/HttpApi"
import type * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { ApiKeysApi } from "./ApiKeysApi.js"
import { AuditApi } from "./AuditApi.js"
import { AuthApi } from "./AuthApi.js"
import {
  BadRequest,
  InternalError,
  NotFound,
  PayloadTooLarge,
  ServiceUnavailable,
  Unauthorized,
  ValidationError
} from "./Domain/ApiErrors.js"
import { HealthApi } from "./HealthApi.js"
import { EventsApi } from "./EventsApi.js"
import { RunsApi } from "./RunsApi.js"
import { WorkerApi } from "./WorkerProtocolApi.js"
import { EnvironmentsApi, WorkspacesApi } from "./TenancyApi.js"
import { TriggersApi } from "./TriggersApi.js"
import { WebhooksApi } from "./WebhooksApi.js"
import { WorkersApi } from "./WorkersApi.js"
import { ConcurrencyPoolsApi } from "./ConcurrencyPoolsApi.js"
import { refine } from "./OpenApiDocument.js"
import { DashboardApi } from "./DashboardApi.js"
import { McpApi } from "./McpApi.js"
import { RunLogsApi, RunLogsWorkerApi } from "./RunLogsApi.js"
import { BulkActionsApi } from "./BulkActionsApi.js"

// The document's transform needs the API's own groups; it runs only when the
// document is generated, long after the class below exists.
let groupsOfApi = (): ReadonlyArray<HttpApiGroup.HttpApiGroup.Any> => []

/**
 * The whole HTTP interface, contract side only: the server, the typed client
 * and the worker SDK are all derived from this definition.
 */
export class Api extends HttpApi.make("pipeline-trigger-service")
  .add(HealthApi)
  .add(AuthApi)
  .add(WorkspacesApi)
  .add(EnvironmentsApi)
  .add(ApiKeysApi)
  .add(AuditApi)
  .add(TriggersApi)
  .add(ConcurrencyPoolsApi)
  .add(RunsApi)
  .add(BulkActionsApi)
  .add(EventsApi)
  .add(WorkerApi)
  .add(RunLogsWorkerApi)
  .add(RunLogsApi)
  .add(WebhooksApi)
  .add(WorkersApi)
  .add(DashboardApi)
  .add(McpApi)
  .addError(ValidationError.wire)
  .addError(BadRequest.wire)
  .addError(Unauthorized.wire)
  .addError(NotFound.wire)
  .addError(PayloadTooLarge.wire)
  .addError(InternalError.wire)
  .addError(ServiceUnavailable.wire)
  .prefix("/api/v1")
  .annotateContext(OpenApi.annotations({
    title: "Pipeline Trigger Service",
    version: "1",
    description: [
      "Triggers for pipeline runs, a worker protocol and signed completion webhooks.",
      "",
      "Conventions: request bodies are JSON (`content-type: application/json`); unknown fields in them are ignored.",
      "Every 4xx and 5xx answer is `{error}`; a 400 for invalid input adds `details: {fieldErrors, formErrors}` naming every invalid field.",
      "A malformed id in a path answers 404 like a missing one. Lists answer `{items, nextCursor}` newest first;",
      "pass `nextCursor` back as `cursor` for the next page. Authentication: the `auth_token` session cookie (browser; calls that",
      "change something must carry an allowed Origin), or `Authorization: Bearer pwk_…` (an API key with its role), or",
      "`Bearer wkt_…` for the worker protocol, or `Bearer mcp_…` (a trigger's MCP token) for `POST /mcp`."
    ].join("\n"),
    // Only the statuses each operation can answer; see OpenApiDocument.
    transform: (spec) => refine(groupsOfApi(), spec)
  }))
{}

groupsOfApi = () => Object.values(Api.groups)
