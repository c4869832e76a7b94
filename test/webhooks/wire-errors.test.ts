import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { Conflict, NotFound } from "../../src/Contract/Domain/ApiErrors.js"
import { RunNotFound } from "../../src/Scheduler/RunRejection.js"
import { DeliveryPending, RunNotEnded, WebhookNotConfigured } from "../../src/Webhooks/WebhookErrors.js"
import { answerWebhookErrors } from "../../src/Webhooks/WebhookWireErrors.js"

const runId = "01a2059a-8d10-7335-b62e-f1db70327ba4"
const answered = (error: RunNotFound | WebhookNotConfigured | RunNotEnded | DeliveryPending) =>
  Effect.flip(answerWebhookErrors(Effect.fail(error)))

// Redelivery says why it sent nothing; the handler answers the contract's statuses and words.
describe("redelivery errors at the HTTP edge", () => {
  it.effect("each reason answers its status and words", () =>
    Effect.gen(function*() {
      expect(yield* answered(new RunNotFound({ runId }))).toEqual(new NotFound({ error: "run not found" }))
      expect(yield* answered(new WebhookNotConfigured({ runId }))).toEqual(new NotFound({ error: "the run's trigger has no webhook" }))
      expect(yield* answered(new RunNotEnded({ runId })))
        .toEqual(new Conflict({ error: "the run has not ended: its webhook is sent when it does" }))
      expect(yield* answered(new DeliveryPending({ runId })))
        .toEqual(new Conflict({ error: "a delivery of this run's webhook is still pending" }))
    }))
})
