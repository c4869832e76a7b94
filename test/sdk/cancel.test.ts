import { expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import { runWorker } from "../../src/WorkerSdk/WorkerSdk.js"
import { createTrigger, registerWorker, setupEnvironment, type TestEnv } from "../support/Fixtures.js"
import { call, layer } from "../support/TestApp.js"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as Layer from "effect/Layer"
import { isTerminal, requestRun, serverUrl, waitForRun } from "./support.js"

// Each request on its own connection: the service holds idle keep-alive
// connections 65 s, and fetch keeps one open as long, which would hold up the
// test server's shutdown after these tests.
const fetchLayer = FetchHttpClient.layer.pipe(
  Layer.provide(Layer.succeed(FetchHttpClient.Fetch, (input, init) => {
    const headers = new Headers(init?.headers)
    headers.set("connection", "close")
    return globalThis.fetch(input, { ...init, headers })
  }))
)

/** A worker whose handler never finishes on its own; `interrupted` is set when the SDK stops it. */
const stuckWorker = (env: TestEnv, options: { readonly concurrency: number }) =>
  Effect.gen(function*() {
    const baseUrl = yield* serverUrl
    const { token, workerId } = yield* registerWorker(env)
    const interrupted = yield* Ref.make(false)
    const fiber = yield* runWorker({
      baseUrl,
      credentials: { workerId, token: Redacted.make(token) },
      concurrency: options.concurrency,
      handler: () => Effect.never.pipe(Effect.onInterrupt(() => Ref.set(interrupted, true)))
    }).pipe(Effect.provide(fetchLayer), Effect.fork)
    return { fiber, interrupted }
  })

const cancelRun = (env: TestEnv, runId: string) =>
  Effect.gen(function*() {
    const res = yield* call("POST", `/api/v1/runs/${runId}/cancel`, { cookie: env.user.cookie })
    expect(res.status).toBe(200)
    expect(res.body.status).toBe("running")
    return res.body
  })

// The test app's CANCEL_GRACE_SECONDS is 30: a run that ends sooner, with the SDK's note, was completed by the worker.
withLayer(layer(), { excludeTestServices: true })("worker SDK: cancellation", (it) => {
  it.effect("the heartbeat answer's cancelRequestedAt interrupts the handler; the run is completed and recorded cancelled", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      // Heartbeats every ~1.7 s (a third of 5 s).
      const trigger = yield* createTrigger(env, { name: "stuck", heartbeatTimeoutSeconds: 5 })
      // One slot, busy: the worker does not poll while the run is in flight, so only the heartbeat can tell it.
      const worker = yield* stuckWorker(env, { concurrency: 1 })
      const runId = yield* requestRun(env, trigger.id)
      yield* waitForRun(env, trigger.id, runId, (run) => run.status === "running")
      const requested = yield* cancelRun(env, runId)
      const run = yield* waitForRun(env, trigger.id, runId, isTerminal, 15)
      yield* Fiber.interrupt(worker.fiber)
      expect(run).toMatchObject({ status: "cancelled", faultClass: "none", errorMessage: "cancelled: the handler was interrupted" })
      expect(new Date(run.endedAt).getTime() - new Date(requested.cancelRequestedAt).getTime()).toBeLessThan(15_000)
      expect(yield* Ref.get(worker.interrupted)).toBe(true)
    }), 40_000)

  it.effect("a free slot's waiting poll learns of the cancel at once (cancelRequested), long before the next heartbeat", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      // Heartbeats only every 100 s: the poll must be what tells the worker.
      const trigger = yield* createTrigger(env, { name: "stuck", heartbeatTimeoutSeconds: 300 })
      const worker = yield* stuckWorker(env, { concurrency: 2 })
      const runId = yield* requestRun(env, trigger.id)
      yield* waitForRun(env, trigger.id, runId, (run) => run.status === "running")
      const requested = yield* cancelRun(env, runId)
      const run = yield* waitForRun(env, trigger.id, runId, isTerminal, 15)
      yield* Fiber.interrupt(worker.fiber)
      expect(run).toMatchObject({ status: "cancelled", errorMessage: "cancelled: the handler was interrupted" })
      expect(new Date(run.endedAt).getTime() - new Date(requested.cancelRequestedAt).getTime()).toBeLessThan(10_000)
      expect(yield* Ref.get(worker.interrupted)).toBe(true)
    }), 40_000)
})
