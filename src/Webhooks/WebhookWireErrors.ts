import { Conflict, NotFound } from "../Contract/Domain/ApiErrors.js"
import { accessCases } from "../Tenancy/TenancyWireErrors.js"
import { answering } from "../Http/DomainErrors.js"
import type { RunNotFound } from "../Scheduler/RunRejection.js"
import type { DeliveryPending, RunNotEnded, WebhookNotConfigured } from "./WebhookErrors.js"

/** The webhook features' own failures, and the access policy's, as the contract answers them. */
export const answerWebhookErrors = answering({
  ...accessCases,
  RunNotFound: (_: RunNotFound) => NotFound.of("run"),
  WebhookNotConfigured: (error: WebhookNotConfigured) => new NotFound({ error: error.message }),
  RunNotEnded: (error: RunNotEnded) => new Conflict({ error: error.message }),
  DeliveryPending: (error: DeliveryPending) => new Conflict({ error: error.message })
})
