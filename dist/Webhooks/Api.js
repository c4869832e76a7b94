import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform";
import * as Schema from "effect/Schema";
import { Authentication } from "../Auth/Security.js";
import { Forbidden, NotFound } from "../Domain/Errors.js";
import { Limit, Page, Timestamp } from "../Domain/Schemas.js";
/** One run's final delivery outcome: the last attempt's status code, body (≤ 1024 characters) and error. */
export class WebhookDelivery extends Schema.Class("WebhookDelivery")({
    id: Schema.UUID,
    runId: Schema.UUID,
    triggerId: Schema.UUID,
    url: Schema.String,
    outcome: Schema.Literal("delivered", "failed"),
    statusCode: Schema.NullOr(Schema.Int),
    responseBody: Schema.NullOr(Schema.String),
    attemptCount: Schema.Int,
    errorMessage: Schema.NullOr(Schema.String),
    createdAt: Timestamp
}) {
}
// A malformed id names nothing, so it answers 404 like a missing one.
const TriggerPath = Schema.Struct({ id: Schema.String });
export const ListDeliveriesParams = Schema.Struct({
    cursor: Schema.optional(Schema.String),
    limit: Schema.optional(Limit)
});
export class WebhooksApi extends HttpApiGroup.make("webhooks")
    .add(HttpApiEndpoint.get("listDeliveries", "/triggers/:id/webhook-deliveries")
    .annotate(OpenApi.Summary, "Webhook delivery history")
    .annotate(OpenApi.Description, "viewer or higher. One record per delivery of a terminal run of this trigger: outcome, the receiver's status code and body (first 1,024 characters), attempts.")
    .setPath(TriggerPath)
    .setUrlParams(ListDeliveriesParams)
    .addSuccess(Page(WebhookDelivery))
    .addError(NotFound)
    .addError(Forbidden))
    .middleware(Authentication) {
}
//# sourceMappingURL=Api.js.map