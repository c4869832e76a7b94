import { expect, layer as withLayer } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { RunLog, runWorker } from "../../src/WorkerSdk/WorkerSdk.js"
import { toLines } from "../../src/WorkerSdk/RunLog.js"
import { nodeWebSocket } from "../channel/support.js"
import { openSse } from "../events/sse.js"
import { fetchLayer, isTerminal, requestRun, serverUrl, waitForRun } from "../sdk/support.js"
import { createTrigger, mintRegistrationToken, setupEnvironment } from "../support/Fixtures.js"
import { layer } from "../support/TestApp.js"
import { parseEvents, readAll } from "./support.js"

withLayer(layer(), { excludeTestServices: true })("the worker SDK's RunLog", (it) => {
  it.effect("toLines: split at newlines, one trailing newline ends the last line, a line over 65,536 characters continued", () =>
    Effect.sync(() => {
      expect(toLines("a\nb\r\nc\n")).toEqual(["a", "b", "c"])
      expect(toLines("")).toEqual([""])
      expect(toLines("x".repeat(65_537))).toEqual(["x".repeat(65_536), "x"])
    }))

  for (const transport of ["rest", "channel"] as const) {
    it.effect(`over ${transport}: what the handler writes is followed live while it runs, sent whole (5,000 lines) before the run completes`, () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const trigger = yield* createTrigger(env, { name: "sdk-logs" })
        const release = yield* Deferred.make<void>()
        const worker = yield* runWorker({
          baseUrl: yield* serverUrl,
          registrationToken: yield* mintRegistrationToken(env),
          transport,
          webSocket: nodeWebSocket,
          handler: () =>
            Effect.gen(function*() {
              yield* RunLog.info("starting")
              yield* RunLog.error("a warning\nover two lines")
              yield* Deferred.await(release)
              for (let i = 1; i <= 5000; i++) yield* RunLog.info(`line ${i}`)
              return { status: "succeeded" as const, stdout: "done" }
            })
        }).pipe(Effect.provide(fetchLayer), Effect.fork)
        const runId = yield* requestRun(env, trigger.id)
        const follower = yield* openSse(`/api/v1/runs/${runId}/logs?follow=1`, { cookie: env.user.cookie })
        yield* follower.until((text) => parseEvents(text).length === 3, "the lines written before the handler waits")
        expect(parseEvents(follower.text()).map((e) => [e.data.stream, e.data.text])).toEqual([
          ["stdout", "starting"], ["stderr", "a warning"], ["stderr", "over two lines"]
        ])
        yield* Deferred.succeed(release, undefined)
        yield* waitForRun(env, trigger.id, runId, isTerminal)
        const { lines } = yield* readAll(runId, env.user.cookie)
        expect(lines).toHaveLength(5003)
        expect(lines.map((l) => l.seq)).toEqual(lines.map((_, i) => i + 1))
        expect(lines.slice(3).map((l) => l.text)).toEqual(Array.from({ length: 5000 }, (_, i) => `line ${i + 1}`))
        yield* follower.until((text) => text.includes("event: end"), "the end event")
        expect(parseEvents(follower.text()).filter((e) => e.event === "line")).toHaveLength(5003)
        yield* Fiber.interrupt(worker)
      }).pipe(Effect.scoped))
  }
})
