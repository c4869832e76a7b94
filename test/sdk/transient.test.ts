import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Ref from "effect/Ref"
import * as TestClock from "effect/TestClock"
import { Conflict, ServiceUnavailable, Unauthorized } from "../../src/Contract/Domain/ApiErrors.js"
import { defaultRetrySchedule, isTransient } from "../../src/WorkerSdk/WorkerSdk.js"
import { retryTransient } from "../../src/WorkerSdk/Transient.js"

describe("transient retries", () => {
  it("classifies 5xx and timeouts as transient, answers like 401 and 409 as final", () => {
    expect(isTransient(ServiceUnavailable.default)).toBe(true)
    expect(isTransient(new Error("handler bug"))).toBe(false)
    expect(isTransient(new Unauthorized({ error: "invalid worker token" }))).toBe(false)
    expect(isTransient(new Conflict({ error: "run is not claimed" }))).toBe(false)
  })

  it.effect("retries a 503 with exponential backoff until the service answers", () =>
    Effect.gen(function*() {
      const attempts = yield* Ref.make(0)
      const flaky = Ref.updateAndGet(attempts, (n) => n + 1).pipe(
        Effect.flatMap((n) => n < 4 ? Effect.fail(ServiceUnavailable.default) : Effect.succeed("ok"))
      )
      const fiber = yield* Effect.fork(retryTransient(flaky, "test call", defaultRetrySchedule))
      // Backoff: about 0.25 s, 0.5 s, 1 s (jittered). Nothing happens before the clock moves.
      yield* TestClock.adjust("100 millis")
      expect(yield* Ref.get(attempts)).toBe(1)
      yield* TestClock.adjust("5 seconds")
      expect(yield* Fiber.join(fiber)).toBe("ok")
      expect(yield* Ref.get(attempts)).toBe(4)
    }))

  it.effect("does not retry a final answer", () =>
    Effect.gen(function*() {
      const attempts = yield* Ref.make(0)
      const refused = Ref.update(attempts, (n) => n + 1).pipe(Effect.zipRight(Effect.fail(new Unauthorized({ error: "no" }))))
      const result = yield* retryTransient(refused, "test call", defaultRetrySchedule).pipe(Effect.flip)
      expect(result).toBeInstanceOf(Unauthorized)
      expect(yield* Ref.get(attempts)).toBe(1)
    }))
})
