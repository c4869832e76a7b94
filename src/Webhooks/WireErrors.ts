import { Conflict, NotFound } from "../Domain/Errors.js"
import { answering } from "../Http/DomainErrors.js"
import type { RunNotFound } from "../Scheduler/RunRejection.js"
import type { DeliveryPending, RunNotEnded, WebhookNotConfigured } from "./WebhookErrors.js"

/** The webhook features' own failures as the contract answers them. */
export const answerWebhookErrors = answering({
  RunNotFound: (_: RunNotFound) => NotFound.of("run"),
  WebhookNotConfigured: (error: WebhookNotConfigured) => new NotFound({ error: error.message }),
  RunNotEnded: (error: RunNotEnded) => new Conflict({ error: error.message }),
  DeliveryPending: (error: DeliveryPending) => new Conflict({ error: error.message })
})
