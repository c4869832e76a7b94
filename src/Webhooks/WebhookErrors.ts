import * as Schema from "effect/Schema"

/** The run's trigger has no webhook: there is nothing to send again. */
export class WebhookNotConfigured extends Schema.TaggedError<WebhookNotConfigured>()("WebhookNotConfigured", {
  runId: Schema.String
}) {
  override get message(): string {
    return "the run's trigger has no webhook"
  }
}

/** The run has not ended: its webhook goes out when it does, so there is nothing to send again yet. */
export class RunNotEnded extends Schema.TaggedError<RunNotEnded>()("RunNotEnded", { runId: Schema.String }) {
  override get message(): string {
    return "the run has not ended: its webhook is sent when it does"
  }
}

/** A delivery of the run's webhook is still pending: a second one would race it. */
export class DeliveryPending extends Schema.TaggedError<DeliveryPending>()("DeliveryPending", { runId: Schema.String }) {
  override get message(): string {
    return "a delivery of this run's webhook is still pending"
  }
}
