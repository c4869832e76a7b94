import { HttpApiBuilder } from "@effect/platform"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Api } from "../Api.js"
import { answerAccess } from "../Http/AccessErrors.js"
import { NotFound } from "../Domain/Errors.js"
import { decodeCursor, defaultLimit, page } from "../Domain/Pagination.js"
import { Policy } from "../Tenancy/Policy.js"
import { DeliveriesRepo, type DeliveryRow } from "./DeliveriesRepo.js"
import { Redelivery } from "./Redelivery.js"
import { answerWebhookErrors } from "./WireErrors.js"

const toApi = (row: DeliveryRow) => ({
  id: row.id,
  runId: row.run_id,
  triggerId: row.trigger_id,
  url: row.url,
  trigger: row.trigger,
  outcome: row.outcome,
  statusCode: row.status_code,
  responseBody: row.response_body,
  attemptCount: row.attempt_count,
  errorMessage: row.error_message,
  createdAt: row.created_at
})

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
        return { items: result.items.map(toApi), nextCursor: result.nextCursor }
      }).pipe(Effect.withSpan("Webhooks.listDeliveries")))
      .handle("redeliver", ({ path }) => answerWebhookErrors(redelivery.redeliver(path.id)))
  }))
