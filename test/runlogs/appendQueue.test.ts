import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as AppendQueue from "../../src/RunLogs/AppendQueue.js"

/** A queue whose groups are recorded, each held until `release` (the first group's statement in flight). */
const recording = (options: { readonly maxWeight?: number; readonly again?: (item: string, attempt: number) => boolean } = {}) =>
  Effect.gen(function*() {
    const groups: Array<ReadonlyArray<string>> = []
    const started = yield* Deferred.make<void>()
    const release = yield* Deferred.make<void>()
    const attempts = new Map<string, number>()
    const enqueue = yield* AppendQueue.make<string, string, string>({
      intervalMillis: 0,
      maxWeight: options.maxWeight ?? 100,
      weight: (item) => item.length,
      run: (items) =>
        Effect.gen(function*() {
          groups.push(items)
          yield* Deferred.succeed(started, undefined)
          yield* Deferred.await(release)
          if (items.includes("boom")) return yield* Effect.fail("refused")
          return items.map((item) => {
            const attempt = (attempts.get(item) ?? 0) + 1
            attempts.set(item, attempt)
            return options.again?.(item, attempt) ? "Again" as const : Exit.succeed(item.toUpperCase())
          })
        })
    })
    return { enqueue, groups, started, release }
  })

/** Waits until `n` calls wait in the queue behind the group in flight (they register at once, but in their own fibers). */
const settle = Effect.yieldNow().pipe(Effect.repeatN(20))

describe("AppendQueue: one writer's groups for many callers", () => {
  it.scopedLive("a call that finds the writer idle goes alone; the calls made while a group is in flight share the next one", () =>
    Effect.gen(function*() {
      const { enqueue, groups, release, started } = yield* recording()
      const first = yield* Effect.fork(enqueue("a"))
      yield* Deferred.await(started)
      const rest = yield* Effect.fork(Effect.all([enqueue("b"), enqueue("c"), enqueue("d")], { concurrency: "unbounded" }))
      yield* settle
      yield* Deferred.succeed(release, undefined)
      expect(yield* Fiber.join(first)).toBe("A")
      expect(yield* Fiber.join(rest)).toEqual(["B", "C", "D"])
      expect(groups).toEqual([["a"], ["b", "c", "d"]])
    }))

  it.scopedLive("a group takes calls up to its weight (at least one), the rest go in the next", () =>
    Effect.gen(function*() {
      const { enqueue, groups, release, started } = yield* recording({ maxWeight: 5 })
      const first = yield* Effect.fork(enqueue("x"))
      yield* Deferred.await(started)
      const rest = yield* Effect.fork(Effect.all([enqueue("bb"), enqueue("ccc"), enqueue("dddddddd"), enqueue("e")], { concurrency: "unbounded" }))
      yield* settle
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(first)
      expect(yield* Fiber.join(rest)).toEqual(["BB", "CCC", "DDDDDDDD", "E"])
      expect(groups).toEqual([["x"], ["bb", "ccc"], ["dddddddd"], ["e"]])
    }))

  it.scopedLive("an item answered Again is first in the next group; a caller who left before its group is in none", () =>
    Effect.gen(function*() {
      const { enqueue, groups, release, started } = yield* recording({ again: (item, attempt) => item === "held" && attempt === 1 })
      const first = yield* Effect.fork(enqueue("held"))
      yield* Deferred.await(started)
      const gone = yield* Effect.fork(enqueue("gone"))
      const later = yield* Effect.fork(enqueue("later"))
      yield* settle
      yield* Fiber.interrupt(gone)
      yield* Deferred.succeed(release, undefined)
      expect(yield* Fiber.join(first)).toBe("HELD")
      expect(yield* Fiber.join(later)).toBe("LATER")
      expect(groups).toEqual([["held"], ["held", "later"]])
    }))

  it.scopedLive("a group that fails answers each of its callers with the failure; the next group is not affected", () =>
    Effect.gen(function*() {
      const { enqueue, release, started } = yield* recording()
      const first = yield* Effect.fork(enqueue("ok"))
      yield* Deferred.await(started)
      const failed = yield* Effect.fork(Effect.all([enqueue("boom"), enqueue("bystander")], { concurrency: "unbounded", mode: "either" }))
      yield* settle
      yield* Deferred.succeed(release, undefined)
      expect(yield* Fiber.join(first)).toBe("OK")
      const answers = yield* Fiber.join(failed)
      expect(answers.map((answer) => answer._tag === "Left" ? answer.left : answer.right)).toEqual(["refused", "refused"])
      expect(yield* enqueue("after")).toBe("AFTER")
    }))
})
