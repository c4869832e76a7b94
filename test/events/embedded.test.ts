import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import { randomBytes } from "node:crypto"
import { PipelineTriggers } from "../../src/index.js"

describe("live run events for an embedding program", () => {
  it.live("PipelineTriggers.runEvents: the environment's transitions as a Stream, resumable after a cursor", () =>
    Effect.gen(function*() {
      const pipelines = yield* PipelineTriggers.PipelineTriggers
      const env = yield* pipelines.createEnvironment("events")
      const trigger = yield* pipelines.createTrigger(env.environmentId, { name: "nightly" })
      const worker = yield* pipelines.registerWorker(env.environmentId)
      const events = yield* Effect.fork(pipelines.runEvents(env.environmentId).pipe(Stream.take(2), Stream.runCollect))
      // Subscribing happens when the fiber starts pulling; give it that moment, then start the run.
      yield* Effect.sleep("1 second")
      const run = yield* pipelines.startRun(trigger.id)
      const first = Chunk.toReadonlyArray(yield* events.await.pipe(Effect.flatten))
      expect(first.map((e) => e.run.id)).toEqual([run.id, run.id])
      expect(first.at(-1)!.run.workerId).toBe(worker.workerId)
      // Resuming after the first event gives the second again.
      const again = yield* pipelines.runEvents(env.environmentId, { after: first[0]!.cursor }).pipe(Stream.take(1), Stream.runCollect)
      expect(Chunk.toReadonlyArray(again).map((e) => e.cursor)).toEqual([first[1]!.cursor])
    }).pipe(Effect.provide(PipelineTriggers.layerEmbedded({
      inMemory: true,
      secretsKey: Option.some(Redacted.make(randomBytes(32).toString("base64"))),
      jwtSecret: Option.some(Redacted.make(randomBytes(48).toString("base64")))
    }))), 180_000)
})
