import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { ServiceUnavailable } from "./Domain/ApiErrors.js"

export class HealthApi extends HttpApiGroup.make("health")
  .add(
    HttpApiEndpoint.get("health", "/health")
      .annotate(OpenApi.Summary, "Health check")
      .annotate(OpenApi.Description, "Answers `{status: \"ok\"}` once the database answers a query, else 503. No authentication.")
      .addSuccess(Schema.Struct({ status: Schema.Literal("ok") }))
      .addError(ServiceUnavailable.wire)
  )
  .add(
    // Liveness: the process answers. Nothing else is checked, so a database outage never restarts it.
    HttpApiEndpoint.get("live", "/health/live")
      .annotate(OpenApi.Summary, "Liveness probe")
      .annotate(OpenApi.Description, "Answers `{status: \"ok\"}` while the process serves HTTP; checks nothing else. Also at `/health/live`. No authentication.")
      .addSuccess(Schema.Struct({ status: Schema.Literal("ok") }))
  )
  .add(
    // Readiness: send traffic here (database reachable, migrations applied, not shutting down).
    HttpApiEndpoint.get("ready", "/health/ready")
      .annotate(OpenApi.Summary, "Readiness probe")
      .annotate(OpenApi.Description, "Answers `{status: \"ready\"}` when the database answers, this build's migrations are applied and no shutdown has begun (SIGTERM flips it to 503 before the port closes); else 503 naming why. Also at `/health/ready`. No authentication.")
      .addSuccess(Schema.Struct({ status: Schema.Literal("ready") }))
      .addError(ServiceUnavailable.wire)
  )
{}
