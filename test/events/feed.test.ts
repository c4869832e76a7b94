import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { RunFeed, RunFeedConfig } from "../../src/Scheduler/RunFeed.js"
import { addTrigger, databaseLayer, requestRun, schedulerOnly, seed } from "../scheduler/support.js"

const realSleep = (ms: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))

/** The scheduler core in real time, with a small read-ahead that drops a subscriber after 300 ms. */
const withFeed = <A, E, R>(body: Effect.Effect<A, E, R>) =>
  body.pipe(
    Effect.provide(schedulerOnly().pipe(Layer.provide(Layer.succeed(RunFeedConfig, { capacity: 3, dropAfterMillis: 300 })))),
    Effect.provide(databaseLayer)
  )

describe("RunFeed (the live feed behind SSE and the embedded Stream)", () => {
  it.live("a subscriber that takes nothing is dropped once its bounded read-ahead stays full; it resumes from its last cursor", () =>
    withFeed(Effect.scoped(Effect.gen(function*() {
      const env = yield* seed(new Date())
      const trigger = yield* addTrigger(env.environmentId)
      const feed = yield* RunFeed
      const slow = yield* feed.subscribe(env.environmentId)
      const keeping = yield* feed.subscribe(env.environmentId)
      // Six runs: requested and assigned each, twelve events; the slow subscriber reads ahead at most three.
      const runIds: Array<string> = []
      for (let i = 0; i < 6; i++) runIds.push(yield* requestRun(trigger, env.userId))
      const kept = yield* keeping.pipe(Stream.take(12), Stream.runCollect)
      expect(Chunk.size(kept)).toBe(12)
      yield* realSleep(800)

      const got: Array<string> = []
      const outcome = yield* slow.pipe(Stream.runForEach((event) => Effect.sync(() => got.push(event.cursor))), Effect.either)
      expect(Either.isLeft(outcome)).toBe(true)
      if (Either.isLeft(outcome)) expect(outcome.left._tag).toBe("SlowSubscriber")
      // Dropped: at most the read-ahead was kept for it, never all twelve.
      expect(got.length).toBeLessThanOrEqual(3)
      const all = Chunk.toReadonlyArray(kept).map((e) => e.cursor)
      expect(got).toEqual(all.slice(0, got.length))

      // From its last cursor a new subscription gets the rest, nothing lost.
      const resumed = yield* feed.subscribe(env.environmentId, { after: got.at(-1) ?? all[0] })
      const rest = yield* resumed.pipe(Stream.take(all.length - Math.max(got.length, 1)), Stream.runCollect)
      expect(Chunk.toReadonlyArray(rest).map((e) => e.cursor)).toEqual(all.slice(Math.max(got.length, 1)))
      expect(new Set(Chunk.toReadonlyArray(kept).map((e) => e.run.id))).toEqual(new Set(runIds))
    }))))
})
