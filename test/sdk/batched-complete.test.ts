import * as HttpClient from "@effect/platform/HttpClient"
import { expect, layer as withLayer } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import { runWorker } from "../../src/WorkerSdk/WorkerSdk.js"
import { createTrigger, registerWorker, setupEnvironment } from "../support/Fixtures.js"
import { layer } from "../support/TestApp.js"
import { fetchLayer, isTerminal, requestRun, serverUrl, waitForRun } from "./support.js"

/** The SDK's HTTP client, recording the URL of every request it makes (as given: the base URL may not be on it yet). */
const recording = (paths: Array<string>) =>
  Layer.effect(
    HttpClient.HttpClient,
    // Provided here, not with Layer.provide: the test server's own HttpClient (which prefixes its URL) is in scope too.
    Effect.map(HttpClient.HttpClient, HttpClient.tapRequest((request) => Effect.sync(() => void paths.push(request.url)))).pipe(
      Effect.provide(fetchLayer)
    )
  )

withLayer(layer(), { excludeTestServices: true })("worker SDK: batched completes (claimOnPoll)", (it) => {
  it.effect("runs that finish together are completed in one call to POST /workers/{id}/runs/complete", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const baseUrl = yield* serverUrl
      const trigger = yield* createTrigger(env, { name: "together" })
      const { token, workerId } = yield* registerWorker(env)
      const runIds = [] as Array<string>
      for (let i = 0; i < 6; i++) runIds.push(yield* requestRun(env, trigger.id))
      const gate = yield* Deferred.make<void>()
      const entered = yield* Ref.make(0)
      const paths: Array<string> = []
      const worker = yield* runWorker({
        baseUrl,
        credentials: { workerId, token: Redacted.make(token) },
        claimOnPoll: true,
        concurrency: 6,
        handler: (run) =>
          Ref.update(entered, (n) => n + 1).pipe(
            Effect.zipRight(Deferred.await(gate)),
            Effect.as({ status: "succeeded" as const, stdout: `done ${run.id}` })
          )
      }).pipe(Effect.provide(recording(paths)), Effect.fork)
      // Every run is in its handler before any may finish.
      while ((yield* Ref.get(entered)) < 6) yield* Effect.sleep("20 millis")
      yield* Deferred.succeed(gate, undefined)
      for (const runId of runIds) {
        const run = yield* waitForRun(env, trigger.id, runId, isTerminal)
        expect(run).toMatchObject({ status: "succeeded", shortMessage: `done ${runId}` })
      }
      yield* Fiber.interrupt(worker)
      const batched = paths.filter((p) => p.endsWith(`/api/v1/workers/${workerId}/runs/complete`))
      const single = paths.filter((p) => /\/runs\/[^/]+\/complete$/.test(p) && !p.endsWith("/runs/complete"))
      // One call for the six (two if the first went out alone before the others were queued).
      expect(batched.length).toBeGreaterThanOrEqual(1)
      expect(batched.length).toBeLessThanOrEqual(2)
      expect(single).toEqual([])
      // Claimed and started by the poll: no claim or start calls either.
      expect(paths.filter((p) => p.endsWith("/claim") || p.endsWith("/start"))).toEqual([])
    }))

  it.effect("a batch refused as invalid is sent run by run, so only the bad run is refused; a malformed costUsd is left out", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const baseUrl = yield* serverUrl
      const trigger = yield* createTrigger(env, { name: "one bad apple" })
      const { token, workerId } = yield* registerWorker(env)
      const runIds = [] as Array<string>
      for (let i = 0; i < 3; i++) runIds.push(yield* requestRun(env, trigger.id))
      const [good, badFault, badCost] = runIds as [string, string, string]
      const gate = yield* Deferred.make<void>()
      const entered = yield* Ref.make<ReadonlyArray<string>>([])
      const paths: Array<string> = []
      const worker = yield* runWorker({
        baseUrl,
        credentials: { workerId, token: Redacted.make(token) },
        claimOnPoll: true,
        concurrency: 3,
        handler: (run) =>
          Ref.update(entered, (ids) => [...ids, run.id]).pipe(
            Effect.zipRight(Deferred.await(gate)),
            Effect.as(
              run.id === badFault
                // A JavaScript caller's "failed, nobody's fault": the service refuses it with a 400.
                ? { status: "failed" as const, faultClass: "none" as any }
                : { status: "succeeded" as const, costUsd: run.id === badCost ? "a lot" : "0.1" }
            )
          )
      }).pipe(Effect.provide(recording(paths)), Effect.fork)
      while ((yield* Ref.get(entered)).length < 3) yield* Effect.sleep("20 millis")
      yield* Deferred.succeed(gate, undefined)
      expect(yield* waitForRun(env, trigger.id, good, isTerminal)).toMatchObject({ status: "succeeded", costUsd: "0.1" })
      expect(yield* waitForRun(env, trigger.id, badCost, isTerminal)).toMatchObject({ status: "succeeded", costUsd: null })
      // The bad run's own complete was tried and refused; it is still running on the service.
      const ownCall = () => paths.filter((p) => p.endsWith(`/api/v1/workers/${workerId}/runs/${badFault}/complete`))
      while (ownCall().length === 0) yield* Effect.sleep("20 millis")
      expect((yield* waitForRun(env, trigger.id, badFault, () => true)).status).toBe("running")
      yield* Fiber.interrupt(worker)
    }), { timeout: 30_000 })
})
