import { expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Logger from "effect/Logger"
import * as Redacted from "effect/Redacted"
import { runWorker } from "../../src/WorkerSdk/WorkerSdk.js"
import { createTrigger, registerWorker, setupEnvironment } from "../support/Fixtures.js"
import { layer } from "../support/TestApp.js"
import { fetchLayer, isTerminal, requestRun, serverUrl, waitForRun } from "./support.js"

/**
 * A REST worker (plain polls, one claim per run) with several slots: a poll
 * that goes out while one of its runs is still being claimed answers that
 * run again (it is still assigned). The worker must not claim it a second
 * time, nor warn that the claim was refused: it is already its own.
 */
withLayer(layer(), { excludeTestServices: true })("REST worker claims", (it) => {
  it.effect("a burst of 100 runs on a four-slot worker: every run once, no claim refused", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const baseUrl = yield* serverUrl
      const trigger = yield* createTrigger(env, { name: "burst" })
      const { token, workerId } = yield* registerWorker(env)
      const warnings: Array<string> = []
      const collect = Logger.make(({ logLevel, message }) => {
        if (logLevel._tag === "Warning" || logLevel._tag === "Error") warnings.push(String(Array.isArray(message) ? message[0] : message))
      })
      const handled = new Map<string, number>()
      const worker = yield* runWorker({
        baseUrl,
        credentials: { workerId, token: Redacted.make(token) },
        transport: "rest",
        concurrency: 4,
        pollWaitSeconds: 2,
        handler: (run) =>
          Effect.sync(() => handled.set(run.id, (handled.get(run.id) ?? 0) + 1)).pipe(
            Effect.as({ status: "succeeded" as const, stdout: "ok" })
          )
      }).pipe(Effect.provide(fetchLayer), Effect.provide(Logger.replace(Logger.defaultLogger, collect)), Effect.fork)
      // Requested together, so several wait assigned to the worker while it works.
      const runIds = yield* Effect.all(Array.from({ length: 100 }, () => requestRun(env, trigger.id)), { concurrency: 10 })
      for (const runId of runIds) expect(yield* waitForRun(env, trigger.id, runId, isTerminal)).toMatchObject({ status: "succeeded" })
      yield* Fiber.interrupt(worker)
      expect([...handled.values()].every((n) => n === 1)).toBe(true)
      expect(handled.size).toBe(100)
      expect(warnings).toEqual([])
    }), 60_000)
})
