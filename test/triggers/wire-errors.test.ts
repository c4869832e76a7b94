import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { Conflict, Forbidden, NotFound } from "../../src/Contract/Domain/ApiErrors.js"
import { TriggerHasActiveRuns, TriggerNotFound } from "../../src/Triggers/TriggerErrors.js"
import { answerTriggerErrors } from "../../src/Triggers/TriggerWireErrors.js"

const triggerId = "01a2059a-8d10-7335-b62e-f1db70327ba4"

// The triggers service says what happened; its handlers answer the contract's statuses and words.
describe("trigger errors at the HTTP edge", () => {
  it.effect("a missing trigger answers 404 trigger not found", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(answerTriggerErrors(Effect.fail(new TriggerNotFound({ triggerId }))))
      expect(error).toEqual(new NotFound({ error: "trigger not found" }))
    }))

  it.effect("a delete refused for active runs answers 409 naming them", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(answerTriggerErrors(Effect.fail(new TriggerHasActiveRuns({ triggerId }))))
      expect(error).toEqual(new Conflict({ error: "trigger has active runs (queued, assigned, claimed or running)" }))
    }))

  it.effect("errors that are not the triggers' own pass unchanged", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(answerTriggerErrors(Effect.fail(Forbidden.role)))
      expect(error).toBe(Forbidden.role)
    }))
})
