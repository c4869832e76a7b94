import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { Authentication } from "./Security.js"
import { Forbidden, NotFound } from "./Domain/ApiErrors.js"
import { pathId } from "./Domain/Uuids.js"
import { Page, Payload, Timestamp } from "./Domain/Schemas.js"
import { Name, PageParams } from "./TenancyApi.js"

/** The roles a `pwk` key can carry: never `owner`. */
export const KeyRole = Schema.Literal("viewer", "operator", "admin")
export type KeyRole = typeof KeyRole.Type

export const KeyPrefix = Schema.Literal("pwk", "wrk").annotations({
  message: () => "prefix must be \"pwk\" (API key) or \"wrk\" (worker registration token)"
})

export const CreateApiKey = Payload({
  name: Name,
  prefix: KeyPrefix,
  /** `pwk` only; defaults to `operator`. Ignored for `wrk` tokens, which have no role. */
  role: Schema.optional(Schema.NullOr(KeyRole))
})

/** The creation response: the only place the token is ever shown. */
export const CreatedApiKey = Schema.Struct({
  id: Schema.UUID,
  name: Schema.String,
  prefix: Schema.Literal("pwk", "wrk"),
  role: Schema.NullOr(KeyRole),
  token: Schema.String,
  createdAt: Timestamp
}).annotations({ identifier: "CreatedApiKey" })

export const ApiKey = Schema.Struct({
  id: Schema.UUID,
  name: Schema.String,
  prefix: Schema.Literal("pwk", "wrk"),
  role: Schema.NullOr(KeyRole),
  tokenStart: Schema.String,
  createdAt: Timestamp,
  lastUsedAt: Schema.NullOr(Timestamp),
  consumedAt: Schema.NullOr(Timestamp)
}).annotations({ identifier: "ApiKey" })
export type ApiKey = typeof ApiKey.Type

const envId = pathId("environment")
const envPath = Schema.Struct({ envId })

export class ApiKeysApi extends HttpApiGroup.make("apiKeys")
  .add(
    HttpApiEndpoint.get("list", "/environments/:envId/api-keys")
      .annotate(OpenApi.Summary, "List API keys")
      .annotate(OpenApi.Description, "Keys of the environment (viewer or higher): name, prefix, role, `tokenStart`, last use. Never the token.")
      .setPath(envPath)
      .setUrlParams(PageParams)
      .addSuccess(Page(ApiKey))
  )
  .add(
    HttpApiEndpoint.post("create", "/environments/:envId/api-keys")
      .annotate(OpenApi.Summary, "Create an API key")
      .annotate(OpenApi.Description, "admin or higher. `prefix: \"pwk\"` makes a key that acts with `role` in this environment; `prefix: \"wrk\"` a one-time worker registration token. The token is in this answer only.")
      .setPath(envPath)
      .setPayload(CreateApiKey)
      .addSuccess(CreatedApiKey, { status: 201 })
  )
  .add(
    HttpApiEndpoint.del("delete", "/environments/:envId/api-keys/:keyId")
      .annotate(OpenApi.Summary, "Delete an API key")
      .annotate(OpenApi.Description, "admin or higher. The key answers 401 from then on.")
      .setPath(Schema.Struct({ envId, keyId: pathId("API key") }))
      .addSuccess(HttpApiSchema.NoContent)
  )
  .addError(Forbidden.wire)
  .addError(NotFound.wire)
  .middleware(Authentication)
{}
