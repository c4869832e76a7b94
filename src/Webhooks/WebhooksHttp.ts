import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Api } from "../Contract/Api.js"
import { answerAccess } from "../Tenancy/TenancyWireErrors.js"
import { NotFound } from "../Contract/Domain/ApiErrors.js"
import { decodeCursor, defaultLimit, page } from "../Db/Pagination.js"
import { Policy } from "../Tenancy/Policy.js"
import { DeliveriesRepo, deliveryFields } from "./DeliveriesRepo.js"
import { Redelivery } from "./Redelivery.js"
import { answerWebhookErrors } from "./WebhookWireErrors.js"

export const WebhooksLive = HttpApiBuilder.group(Api, "webhooks", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* DeliveriesRepo
    const policy = yield* Policy
    const redelivery = yield* Redelivery
    return handlers.handle("listDeliveries", ({ path, urlParams }) =>
      Effect.gen(function*() {
        const notFound = NotFound.of("trigger")
        const environmentId = yield* repo.triggerEnvironment(path.id).pipe(Effect.orDie)
        if (Option.isNone(environmentId)) return yield* Effect.fail(notFound)
        // The history can show error details of the receiver: members only, any role.
        yield* answerAccess(policy.requireRole(environmentId.value, "viewer", "trigger"))
        const before = yield* decodeCursor(urlParams.cursor)
        const limit = urlParams.limit ?? defaultLimit
        const rows = yield* repo.listByTrigger(path.id, before, limit).pipe(Effect.orDie)
        const result = page(rows, limit)
        return { items: result.items.map(deliveryFields), nextCursor: result.nextCursor }
      }).pipe(Effect.withSpan("Webhooks.listDeliveries")))
      .handle("listRunDeliveries", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const run = yield* repo.runForRedelivery(path.id).pipe(Effect.orDie)
          if (Option.isNone(run)) return yield* Effect.fail(NotFound.of("run"))
          yield* answerAccess(policy.requireRole(run.value.environment_id, "viewer", "run"))
          const before = yield* decodeCursor(urlParams.cursor)
          const limit = urlParams.limit ?? defaultLimit
          const rows = yield* repo.listByRun(path.id, before, limit).pipe(Effect.orDie)
          const result = page(rows, limit)
          return { items: result.items.map(deliveryFields), nextCursor: result.nextCursor }
        }).pipe(Effect.withSpan("Webhooks.listRunDeliveries")))
      .handle("redeliver", ({ path }) => answerWebhookErrors(redelivery.redeliver(path.id)))
  }))
