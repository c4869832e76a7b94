import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { Api } from "../Contract/Api.js"
import { answerAccess } from "../Tenancy/TenancyWireErrors.js"
import { CurrentActor } from "../Contract/Security.js"
import { Forbidden, NotFound } from "../Contract/Domain/ApiErrors.js"
import { defaultLimit } from "../Db/Pagination.js"
import { roleAtLeast } from "../Contract/Domain/Schemas.js"
import { Policy } from "../Tenancy/Policy.js"
import { ApiKeys } from "./ApiKeys.js"

export const ApiKeysLive = HttpApiBuilder.group(Api, "apiKeys", (handlers) =>
  Effect.gen(function*() {
    const policy = yield* Policy
    const keys = yield* ApiKeys
    return handlers
      .handle("list", ({ path, urlParams }) =>
        Effect.gen(function*() {
          yield* answerAccess(policy.requireRole(path.envId, "viewer"))
          return yield* keys.list(path.envId, urlParams.cursor, urlParams.limit ?? defaultLimit)
        }))
      .handle("create", ({ path, payload }) =>
        Effect.gen(function*() {
          yield* answerAccess(policy.requireRole(path.envId, "admin"))
          const actor = yield* CurrentActor
          const role = payload.prefix === "pwk" ? payload.role ?? "operator" : null
          // A key cannot mint a stronger key than itself (no escalation through API keys).
          if (actor._tag === "ApiKey" && role !== null && !roleAtLeast(actor.role, role)) {
            return yield* Effect.fail(new Forbidden({ error: "an API key cannot create a key with a higher role than its own" }))
          }
          return yield* keys.create(actor, path.envId, { name: payload.name, prefix: payload.prefix, role })
        }))
      .handle("delete", ({ path }) =>
        Effect.gen(function*() {
          yield* answerAccess(policy.requireRole(path.envId, "admin"))
          yield* keys.remove(yield* CurrentActor, path.envId, path.keyId).pipe(
            Effect.catchTag("ApiKeyNotFound", (error) => Effect.fail(new NotFound({ error: error.message })))
          )
        }))
  }))
