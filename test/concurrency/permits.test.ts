import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/TestClock"
import * as Permits from "../../src/Concurrency/Permits.js"

describe("Permits", () => {
  it.effect("at most n holders at once; waiters get the permits in arrival order", () =>
    Effect.gen(function*() {
      const permits = yield* Permits.make(2)
      let holding = 0
      let most = 0
      const order: Array<number> = []
      const job = (i: number) =>
        permits.withPermit(Effect.gen(function*() {
          order.push(i)
          holding++
          most = Math.max(most, holding)
          yield* Effect.sleep("1 second")
          holding--
        }))
      const fibers: Array<Fiber.RuntimeFiber<void>> = []
      for (let i = 0; i < 6; i++) {
        fibers.push(yield* Effect.fork(job(i)))
        yield* Effect.yieldNow()
      }
      yield* TestClock.adjust("3 seconds")
      yield* Fiber.joinAll(fibers)
      expect(most).toBe(2)
      expect(order).toEqual([0, 1, 2, 3, 4, 5])
    }))

  it.effect("a permit comes back when the holder fails or is interrupted", () =>
    Effect.gen(function*() {
      const permits = yield* Permits.make(1)
      const failed = yield* Effect.flip(permits.withPermit(Effect.fail("boom")))
      expect(failed).toBe("boom")
      const holder = yield* Effect.fork(permits.withPermit(Effect.never))
      yield* Effect.yieldNow()
      const waiter = yield* Effect.fork(permits.withPermit(Effect.succeed("got it")))
      yield* Effect.yieldNow()
      yield* Fiber.interrupt(holder)
      expect(yield* Fiber.join(waiter)).toBe("got it")
    }))

  it.scoped("an interrupted waiter does not take a permit with it, woken or not", () =>
    Effect.gen(function*() {
      const permits = yield* Permits.make(1)
      const holder = yield* Effect.fork(Effect.scoped(Effect.zipRight(permits.acquireScoped, Effect.never)))
      yield* Effect.yieldNow()
      const waiting = yield* Effect.fork(permits.withPermit(Effect.succeed(1)))
      yield* Effect.yieldNow()
      yield* Fiber.interrupt(waiting)
      // Woken by the release and interrupted before it ran: its turn passes on.
      const woken = yield* Effect.fork(permits.withPermit(Effect.succeed(2)))
      const next = yield* Effect.fork(permits.withPermit(Effect.succeed(3)))
      yield* Effect.yieldNow()
      yield* Fiber.interrupt(holder)
      yield* Fiber.interrupt(woken)
      expect(yield* Fiber.join(next)).toBe(3)
      expect(yield* permits.withPermit(Effect.succeed(4))).toBe(4)
    }))

  it.effect("interrupting holders and waiters at every step never loses a permit", () =>
    Effect.gen(function*() {
      const permits = yield* Permits.make(2)
      for (let round = 0; round < 50; round++) {
        const fibers = yield* Effect.forEach(
          Array.from({ length: 6 }, (_, i) => i),
          (i) => Effect.fork(permits.withPermit(i % 2 === 0 ? Effect.yieldNow() : Effect.never)),
          { concurrency: 1 }
        )
        for (let step = 0; step < round % 5; step++) yield* Effect.yieldNow()
        yield* Effect.forEach(fibers, Fiber.interrupt, { discard: true })
      }
      // Both permits are still there: two holders at once.
      const both = yield* Effect.all([permits.withPermit(Effect.sleep("1 second")), permits.withPermit(Effect.sleep("1 second"))], { concurrency: 2 }).pipe(Effect.fork)
      yield* TestClock.adjust("1 second")
      yield* Fiber.join(both)
    }))
})
