import { expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import { runWorker, type WorkerRun } from "../../src/WorkerSdk/WorkerSdk.js"
import { createTrigger, mintRegistrationToken, registerWorker, setupEnvironment } from "../support/Fixtures.js"
import { layer } from "../support/TestApp.js"
import { fetchLayer, isTerminal, readRun, requestRun, serverUrl, waitForRun } from "./support.js"

withLayer(layer(), { excludeTestServices: true })("worker SDK", (it) => {
  it.effect("registers with a wrk_ token, runs the handler and completes with its result", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const baseUrl = yield* serverUrl
      const trigger = yield* createTrigger(env, { name: "sdk", input: { n: 1 } })
      const registration = yield* mintRegistrationToken(env)
      const seen = yield* Ref.make<ReadonlyArray<WorkerRun>>([])
      const registered = yield* Ref.make<string | undefined>(undefined)
      const worker = yield* runWorker({
        baseUrl,
        registrationToken: registration,
        label: "sdk-test",
        onRegistered: (credentials) => Ref.set(registered, credentials.workerId),
        handler: (run) =>
          Ref.update(seen, (runs) => [...runs, run]).pipe(
            Effect.as({ status: "succeeded" as const, stdout: "done\n", costUsd: "0.25" })
          )
      }).pipe(Effect.provide(fetchLayer), Effect.fork)
      const runId = yield* requestRun(env, trigger.id)
      const run = yield* waitForRun(env, trigger.id, runId, isTerminal)
      yield* Fiber.interrupt(worker)
      expect(run).toMatchObject({ status: "succeeded", shortMessage: "done\n", costUsd: "0.25", faultClass: "none" })
      expect(run.workerId).toBe(yield* Ref.get(registered))
      const runs = yield* Ref.get(seen)
      expect(runs.map((r) => r.id)).toEqual([runId])
      expect(runs[0]!.trigger).toMatchObject({ id: trigger.id, name: "sdk", input: { n: 1 } })
    }))

  it.effect("a handler failure completes the run failed with its message as errorMessage", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const baseUrl = yield* serverUrl
      const trigger = yield* createTrigger(env, { name: "failing" })
      const { token, workerId } = yield* registerWorker(env)
      const worker = yield* runWorker({
        baseUrl,
        credentials: { workerId, token: Redacted.make(token) },
        claimOnPoll: true,
        handler: () => Effect.fail(new Error("disk full"))
      }).pipe(Effect.provide(fetchLayer), Effect.fork)
      const runId = yield* requestRun(env, trigger.id)
      const run = yield* waitForRun(env, trigger.id, runId, isTerminal)
      yield* Fiber.interrupt(worker)
      expect(run).toMatchObject({ status: "failed", errorMessage: "disk full", faultClass: "client" })
      // claimOnPoll claims and starts in the poll (`start=true`). A run handed
      // to a waiting poll is claimed when it is created and started when the
      // poll wakes, so the two moments may differ by the wake-up's latency.
      expect(run.startedAt).not.toBeNull()
      expect(Date.parse(run.startedAt!)).toBeGreaterThanOrEqual(Date.parse(run.claimedAt!))
    }))

  it.effect("heartbeats keep a run alive past heartbeatTimeoutSeconds", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const baseUrl = yield* serverUrl
      // 5 s is the smallest heartbeat timeout; the handler takes longer than that.
      const trigger = yield* createTrigger(env, { name: "slow", heartbeatTimeoutSeconds: 5 })
      const { token, workerId } = yield* registerWorker(env)
      const worker = yield* runWorker({
        baseUrl,
        credentials: { workerId, token: Redacted.make(token) },
        handler: () => Effect.sleep("7 seconds").pipe(Effect.as({ status: "succeeded" as const, stdout: "slow but alive" }))
      }).pipe(Effect.provide(fetchLayer), Effect.fork)
      const runId = yield* requestRun(env, trigger.id)
      const run = yield* waitForRun(env, trigger.id, runId, isTerminal, 30)
      yield* Fiber.interrupt(worker)
      expect(run).toMatchObject({ status: "succeeded", shortMessage: "slow but alive" })
      expect(run.lastHeartbeatAt).not.toBeNull()
      expect(run.durationMs).toBeGreaterThanOrEqual(7000)
    }), 40_000)

  it.effect("shutdown stops polling and lets the in-flight run finish within the grace period", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const baseUrl = yield* serverUrl
      const trigger = yield* createTrigger(env, { name: "graceful" })
      const { token, workerId } = yield* registerWorker(env)
      const worker = yield* runWorker({
        baseUrl,
        credentials: { workerId, token: Redacted.make(token) },
        shutdownGracePeriod: "10 seconds",
        handler: () => Effect.sleep("1500 millis").pipe(Effect.as({ status: "succeeded" as const, stdout: "finished" }))
      }).pipe(Effect.provide(fetchLayer), Effect.fork)
      const runId = yield* requestRun(env, trigger.id)
      yield* waitForRun(env, trigger.id, runId, (r) => r.status === "running")
      // Interruption returns once the worker has shut down: the run is complete by then.
      yield* Fiber.interrupt(worker)
      const run = yield* readRun(env, trigger.id, runId)
      expect(run).toMatchObject({ status: "succeeded", shortMessage: "finished" })

      // The stopped worker takes nothing more: a new run is never claimed.
      const next = yield* requestRun(env, trigger.id)
      yield* Effect.sleep("1500 millis")
      const untouched = yield* readRun(env, trigger.id, next)
      expect(["queued", "assigned"]).toContain(untouched.status)
      expect(untouched.claimedAt).toBeNull()
    }))

  it.effect("a run still in flight when the grace period ends is completed failed with faultClass infra", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const baseUrl = yield* serverUrl
      const trigger = yield* createTrigger(env, { name: "stuck" })
      const { token, workerId } = yield* registerWorker(env)
      const interrupted = yield* Ref.make(false)
      const worker = yield* runWorker({
        baseUrl,
        credentials: { workerId, token: Redacted.make(token) },
        shutdownGracePeriod: "300 millis",
        handler: () => Effect.never.pipe(Effect.onInterrupt(() => Ref.set(interrupted, true)))
      }).pipe(Effect.provide(fetchLayer), Effect.fork)
      const runId = yield* requestRun(env, trigger.id)
      yield* waitForRun(env, trigger.id, runId, (r) => r.status === "running")
      yield* Fiber.interrupt(worker)
      const run = yield* readRun(env, trigger.id, runId)
      expect(run).toMatchObject({ status: "failed", faultClass: "infra", errorMessage: "the worker shut down before the run finished" })
      expect(yield* Ref.get(interrupted)).toBe(true)
    }))

  it.effect("an invalid worker token stops the worker with WorkerUnauthorized", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const baseUrl = yield* serverUrl
      const { workerId } = yield* registerWorker(env)
      const result = yield* runWorker({
        baseUrl,
        credentials: { workerId, token: Redacted.make("wkt_not-a-real-token") },
        handler: () => Effect.succeed({ status: "succeeded" as const })
      }).pipe(Effect.provide(fetchLayer), Effect.either)
      expect(Either.isLeft(result) && result.left._tag).toBe("WorkerUnauthorized")
    }))

  it.effect("a malformed URL and a used registration token are configuration errors, not retried", () =>
    Effect.gen(function*() {
      const baseUrl = yield* serverUrl
      const badUrl = yield* runWorker({
        baseUrl: "localhost:3000",
        registrationToken: "wrk_x",
        handler: () => Effect.succeed({ status: "succeeded" as const })
      }).pipe(Effect.provide(fetchLayer), Effect.flip)
      expect(badUrl._tag).toBe("WorkerConfigError")
      expect(badUrl.message).toContain("invalid service URL")

      const used = yield* runWorker({
        baseUrl,
        registrationToken: "wrk_never-minted",
        handler: () => Effect.succeed({ status: "succeeded" as const })
      }).pipe(Effect.provide(fetchLayer), Effect.flip)
      expect(used._tag).toBe("WorkerRegistrationError")
      expect(used.message).toContain("registration token refused")
    }))
})
