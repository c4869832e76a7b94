import { describe, expect, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Grouped from "../../src/Concurrency/Grouped.js"

/**
 * A grouped call whose runs wait for `release` (one Deferred per run, in
 * order) and answer each item doubled; every run's items are recorded.
 */
const harness = (options: { readonly max: number; readonly id?: (n: number) => string; readonly failOn?: number }) =>
  Effect.gen(function*() {
    const runs: Array<ReadonlyArray<number>> = []
    const gates: Array<Deferred.Deferred<void>> = []
    const gate = (i: number) => {
      while (gates.length <= i) gates.push(Deferred.unsafeMake<void>(FiberId.none))
      return gates[i]!
    }
    const call = yield* Grouped.make<number, number, string>({
      max: options.max,
      id: options.id,
      run: (_key, items) =>
        Effect.gen(function*() {
          const index = runs.length
          runs.push(items)
          yield* Deferred.await(gate(index))
          if (options.failOn !== undefined && items.includes(options.failOn)) return yield* Effect.die("statement failed")
          return items.map((n) => n < 0 ? Effect.fail(`refused ${n}`) : Effect.succeed(n * 2))
        })
    })
    const release = (i: number) => Deferred.succeed(gate(i), undefined)
    return { call, runs, release }
  })

// Lets forked callers reach their queue.
const turn = Effect.repeatN(Effect.yieldNow(), 20)

describe("Concurrency/Grouped", () => {
  it.scoped("a call with nothing in flight runs alone; calls meanwhile share the next run; each gets its own answer", () =>
    Effect.gen(function*() {
      const h = yield* harness({ max: 10 })
      const first = yield* Effect.fork(h.call("k", 1))
      yield* turn
      const rest = yield* Effect.fork(Effect.all([2, 3, -4, 5].map((n) => Effect.either(h.call("k", n))), { concurrency: "unbounded" }))
      // Another key is not held up by k's run.
      const other = yield* Effect.fork(h.call("other", 7))
      yield* turn
      expect(h.runs).toEqual([[1], [7]])
      yield* h.release(0)
      expect(yield* Fiber.join(first)).toBe(2)
      yield* turn
      expect(h.runs).toEqual([[1], [7], [2, 3, -4, 5]])
      yield* h.release(1)
      expect(yield* Fiber.join(other)).toBe(14)
      yield* h.release(2)
      const answers = yield* Fiber.join(rest)
      expect(answers.map((a) => a._tag === "Right" ? a.right : a.left)).toEqual([4, 6, "refused -4", 10])
    }))

  it.scoped("at most max items per run; items with the same id go to separate runs", () =>
    Effect.gen(function*() {
      const h = yield* harness({ max: 3, id: (n) => String(Math.abs(n) % 10) })
      const first = yield* Effect.fork(h.call("k", 100))
      yield* turn
      const rest = yield* Effect.fork(Effect.all([1, 11, 2, 3, 4].map((n) => h.call("k", n)), { concurrency: "unbounded" }))
      yield* turn
      for (let i = 0; i < 3; i++) {
        yield* h.release(i)
        yield* turn
      }
      expect(yield* Fiber.join(first)).toBe(200)
      expect(yield* Fiber.join(rest)).toEqual([2, 22, 4, 6, 8])
      // 11 shares its id with 1, and the first group is full at three.
      expect(h.runs).toEqual([[100], [1, 2, 3], [11, 4]])
    }))

  it.scoped("a failed run fails each of its callers; the next run still happens", () =>
    Effect.gen(function*() {
      const h = yield* harness({ max: 10, failOn: 2 })
      const first = yield* Effect.fork(h.call("k", 1))
      yield* turn
      const failing = yield* Effect.fork(Effect.all([2, 3].map((n) => Effect.exit(h.call("k", n))), { concurrency: "unbounded" }))
      yield* turn
      yield* h.release(0)
      yield* turn
      const after = yield* Effect.fork(h.call("k", 4))
      yield* h.release(1)
      yield* turn
      yield* h.release(2)
      expect(yield* Fiber.join(first)).toBe(2)
      expect(h.runs).toEqual([[1], [2, 3], [4]])
      const exits = yield* Fiber.join(failing)
      expect(exits.map((exit) => Exit.isFailure(exit) && Cause.isDie(exit.cause))).toEqual([true, true])
      expect(yield* Fiber.join(after)).toBe(8)
    }))

  it.scoped("a caller that leaves before its run starts is left out of it", () =>
    Effect.gen(function*() {
      const h = yield* harness({ max: 10 })
      const first = yield* Effect.fork(h.call("k", 1))
      yield* turn
      const leaving = yield* Effect.fork(h.call("k", 2))
      const staying = yield* Effect.fork(h.call("k", 3))
      yield* turn
      yield* Fiber.interrupt(leaving)
      yield* h.release(0)
      yield* turn
      yield* h.release(1)
      expect(yield* Fiber.join(first)).toBe(2)
      expect(yield* Fiber.join(staying)).toBe(6)
      expect(h.runs).toEqual([[1], [3]])
    }))
})
