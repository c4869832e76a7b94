import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/TestClock"
import * as SharedCheck from "../../src/Health/SharedCheck.js"

/** A check that counts its runs and answers when `release` is opened. */
const gatedCheck = Effect.gen(function*() {
  let runs = 0
  const release = yield* Deferred.make<boolean>()
  const check = Effect.suspend(() => {
    runs++
    return Deferred.await(release)
  })
  return { check, release, runs: () => runs }
})

describe("SharedCheck", () => {
  it.effect("callers arriving while a check is in flight share it", () =>
    Effect.gen(function*() {
      const gated = yield* gatedCheck
      const shared = SharedCheck.make(gated.check)
      const callers = yield* Effect.forEach(Array.from({ length: 10 }), () => Effect.fork(shared))
      yield* Effect.yieldNow()
      yield* Deferred.succeed(gated.release, false)
      const answers = yield* Effect.forEach(callers, Fiber.join)
      expect(answers).toEqual(Array.from({ length: 10 }, () => false))
      expect(gated.runs()).toBe(1)
    }))

  it.effect("a finished check is not reused: the next caller runs a new one", () =>
    Effect.gen(function*() {
      let runs = 0
      const shared = SharedCheck.make(Effect.sync(() => ++runs))
      expect(yield* shared).toBe(1)
      expect(yield* shared).toBe(2)
    }))

  it.effect("the first caller going away does not leave the others waiting", () =>
    Effect.gen(function*() {
      const shared = SharedCheck.make(Effect.as(Effect.sleep("1 second"), "answered"))
      const first = yield* Effect.fork(shared)
      yield* Effect.yieldNow()
      const second = yield* Effect.fork(shared)
      yield* Effect.yieldNow()
      const interrupting = yield* Effect.fork(Fiber.interrupt(first))
      yield* TestClock.adjust("1 second")
      yield* Fiber.join(interrupting)
      expect(yield* Fiber.join(second)).toBe("answered")
    }))
})
