import { HttpApi, OpenApi } from "@effect/platform"
import { ApiKeysApi } from "./ApiKeys/Api.js"
import { AuditApi } from "./Audit/Api.js"
import { AuthApi } from "./Auth/Api.js"
import {
  BadRequest,
  InternalError,
  NotFound,
  PayloadTooLarge,
  ServiceUnavailable,
  Unauthorized,
  ValidationError
} from "./Domain/Errors.js"
import { HealthApi } from "./Health/Api.js"
import { RunsApi } from "./Runs/Api.js"
import { WorkerApi } from "./Scheduler/WorkerApi.js"
import { EnvironmentsApi, WorkspacesApi } from "./Tenancy/Api.js"
import { TriggersApi } from "./Triggers/Api.js"
import { WebhooksApi } from "./Webhooks/Api.js"
import { WorkersApi } from "./Workers/Api.js"
import { DashboardApi } from "./Dashboard/Api.js"

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
  .add(RunsApi)
  .add(WorkerApi)
  .add(WebhooksApi)
  .add(WorkersApi)
  .add(DashboardApi)
  .addError(ValidationError)
  .addError(BadRequest)
  .addError(Unauthorized)
  .addError(NotFound)
  .addError(PayloadTooLarge)
  .addError(InternalError)
  .addError(ServiceUnavailable)
  .prefix("/api/v1")
  .annotateContext(OpenApi.annotations({
    title: "Pipeline Trigger Service",
    version: "1",
    description: "Triggers for pipeline runs, a worker protocol and signed completion webhooks.",
    // The builder's own decode error never reaches clients: it is turned into ValidationError.
    transform: (spec) => {
      const text = JSON.stringify(spec).replaceAll("#/components/schemas/HttpApiDecodeError", "#/components/schemas/ValidationError")
      const out = JSON.parse(text)
      delete out.components?.schemas?.HttpApiDecodeError
      return out
    }
  }))
{}
