import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import * as Schema from "effect/Schema"
import { ServiceUnavailable } from "../Domain/Errors.js"

export class HealthApi extends HttpApiGroup.make("health")
  .add(
    HttpApiEndpoint.get("health", "/health")
      .addSuccess(Schema.Struct({ status: Schema.Literal("ok") }))
      .addError(ServiceUnavailable)
  )
{}
