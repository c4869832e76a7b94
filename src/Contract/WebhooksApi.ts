import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { Authentication } from "./Security.js"
import { Conflict, Forbidden, NotFound } from "./Domain/ApiErrors.js"
import { pathId } from "./Domain/Uuids.js"
import { Limit, Page, Timestamp } from "./Domain/Schemas.js"

/** What started a delivery: the run's terminal transition, or an operator's redelivery. */
export const DeliveryTrigger = Schema.Literal("automatic", "manual")

/**
 * One delivery's final outcome: the last attempt's status code, body (≤ 1024
 * characters) and error. A run has one record per delivery.
 */
export class WebhookDelivery extends Schema.Class<WebhookDelivery>("WebhookDelivery")({
  id: Schema.UUID,
  runId: Schema.UUID,
  triggerId: Schema.UUID,
  url: Schema.String,
  trigger: DeliveryTrigger,
  outcome: Schema.Literal("delivered", "failed"),
  statusCode: Schema.NullOr(Schema.Int),
  responseBody: Schema.NullOr(Schema.String),
  attemptCount: Schema.Int,
  errorMessage: Schema.NullOr(Schema.String),
  createdAt: Timestamp
}) {}

/** A redelivery accepted: it is pending in the outbox; its record appears in the history once it ends. */
export class PendingDelivery extends Schema.Class<PendingDelivery>("PendingDelivery")({
  runId: Schema.UUID,
  triggerId: Schema.UUID,
  trigger: DeliveryTrigger
}) {}

const TriggerPath = Schema.Struct({ id: pathId("trigger") })
const RunPath = Schema.Struct({ id: pathId("run") })

export const ListDeliveriesParams = Schema.Struct({
  cursor: Schema.optional(Schema.String),
  limit: Schema.optional(Limit)
})

export class WebhooksApi extends HttpApiGroup.make("webhooks")
  .add(
    HttpApiEndpoint.get("listDeliveries", "/triggers/:id/webhook-deliveries")
      .annotate(OpenApi.Summary, "Webhook delivery history")
      .annotate(OpenApi.Description, "viewer or higher. One record per delivery of a terminal run of this trigger: outcome, the receiver's status code and body (first 1,024 characters), attempts.")
      .setPath(TriggerPath)
      .setUrlParams(ListDeliveriesParams)
      .addSuccess(Page(WebhookDelivery))
      .addError(NotFound.wire)
      .addError(Forbidden.wire)
  )
  .add(
    HttpApiEndpoint.get("listRunDeliveries", "/runs/:id/webhook-deliveries")
      .annotate(OpenApi.Summary, "A run's webhook deliveries")
      .annotate(OpenApi.Description, "viewer or higher. Every delivery of this run's webhook, newest first: the automatic one at its end and each redelivery, with the same record as the trigger's history.")
      .setPath(RunPath)
      .setUrlParams(ListDeliveriesParams)
      .addSuccess(Page(WebhookDelivery))
      .addError(NotFound.wire)
      .addError(Forbidden.wire)
  )
  .add(
    HttpApiEndpoint.post("redeliver", "/runs/:id/webhook-deliveries")
      .annotate(OpenApi.Summary, "Redeliver a run's webhook")
      .annotate(OpenApi.Description,
        "operator or higher. Sends the terminal run's webhook again: the same body bytes, signed with the run's " +
          "secret, to the run's webhook URL, through the outbox with the usual retries. The delivery gets its own " +
          "record in the history, with `trigger: \"manual\"`. 409 while a delivery of the run is pending or when the " +
          "run has not ended; 404 when the run's trigger had no webhook.")
      .setPath(RunPath)
      .addSuccess(PendingDelivery, { status: 202 })
      .addError(NotFound.wire)
      .addError(Forbidden.wire)
      .addError(Conflict.wire)
  )
  .middleware(Authentication)
{}
