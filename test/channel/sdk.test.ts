import { describe, expect, layer as withLayer } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import { ChannelEnabled } from "../../src/WorkerChannel/ChannelConfig.js"
import type { WebSocketFactory } from "../../src/WorkerSdk/Channel.js"
import { runWorker } from "../../src/WorkerSdk/WorkerSdk.js"
import { createTrigger, registerWorker, setupEnvironment } from "../support/Fixtures.js"
import { call, layer } from "../support/TestApp.js"
import { fetchLayer, isTerminal, requestRun, serverUrl, waitForRun } from "../sdk/support.js"
import { eventually } from "../webhooks/support.js"
import { nodeWebSocket } from "./support.js"

/**
 * The `ws` client, with hooks: every socket opened is kept (so a test can cut
 * one), and `dropAnswersAfter` makes a socket ignore what the service sends
 * once the first matching message went out (an answer lost with its connection).
 */
const recording = (dropAnswersAfter?: (sent: string) => boolean) => {
  const sockets: Array<any> = []
  let dropped = false
  const factory: WebSocketFactory = (url, options) => {
    const socket: any = nodeWebSocket(url, options)
    let deaf = false
    const send = socket.send.bind(socket)
    socket.send = (data: unknown, ...rest: Array<unknown>) => {
      send(data, ...rest)
      if (!dropped && dropAnswersAfter !== undefined && dropAnswersAfter(String(data))) {
        dropped = true
        deaf = true
        setTimeout(() => socket.terminate(), 300)
      }
    }
    const add = socket.addEventListener.bind(socket)
    socket.addEventListener = (type: string, listener: (event: any) => void, ...rest: Array<unknown>) =>
      add(type, type === "message" ? (event: any) => deaf ? undefined : listener(event) : listener, ...rest)
    sockets.push(socket)
    return socket
  }
  return { factory, sockets }
}

/**
 * The `ws` client, where the first socket receives a connection-wide `Defect`
 * message (what @effect/rpc sends for a handler's defect, as the service once
 * did for a database failure) right after the worker sends `trigger`.
 */
const defectAfter = (trigger: string) => {
  let injected = false
  const factory: WebSocketFactory = (url, options) => {
    const socket: any = nodeWebSocket(url, options)
    const listeners: Array<(event: any) => void> = []
    const add = socket.addEventListener.bind(socket)
    socket.addEventListener = (type: string, listener: (event: any) => void, ...rest: Array<unknown>) => {
      if (type === "message") listeners.push(listener)
      return add(type, listener, ...rest)
    }
    const send = socket.send.bind(socket)
    socket.send = (data: unknown, ...rest: Array<unknown>) => {
      send(data, ...rest)
      if (!injected && String(data).includes(trigger)) {
        injected = true
        const defect = JSON.stringify({ _tag: "Defect", defect: { name: "SqlError", message: "Failed to execute statement" } })
        setTimeout(() => listeners.forEach((listener) => listener({ data: defect })), 10)
      }
    }
    return socket
  }
  return { factory, injected: () => injected }
}

withLayer(layer(), { excludeTestServices: true })("worker SDK over the channel", (it) => {
  it.effect("uses the channel when the service offers it: runs are pushed started, completed over it", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const baseUrl = yield* serverUrl
      const trigger = yield* createTrigger(env, { name: "pushed" })
      const { token, workerId } = yield* registerWorker(env)
      const worker = yield* runWorker({
        baseUrl,
        credentials: { workerId, token: Redacted.make(token) },
        webSocket: nodeWebSocket,
        concurrency: 2,
        handler: (run) => Effect.succeed({ status: "succeeded" as const, stdout: `pushed ${run.id}` })
      }).pipe(Effect.provide(fetchLayer), Effect.fork)
      const runIds = [yield* requestRun(env, trigger.id), yield* requestRun(env, trigger.id), yield* requestRun(env, trigger.id)]
      for (const runId of runIds) {
        const run = yield* waitForRun(env, trigger.id, runId, isTerminal)
        expect(run).toMatchObject({ status: "succeeded", shortMessage: `pushed ${runId}`, workerId })
        // Pushed runs are claimed and started in one statement; the REST worker (no claimOnPoll) claims, then starts.
        expect(run.startedAt).toBe(run.claimedAt)
      }
      const listed = yield* call("GET", `/api/v1/environments/${env.environmentId}/workers`, { cookie: env.user.cookie })
      expect(listed.body.items.find((w: any) => w.id === workerId)?.status).toBe("online")
      yield* Fiber.interrupt(worker)
    }), 30_000)

  it.effect("a connection cut mid-run: the worker reconnects, heartbeats and completes the run once; the next run is pushed on the new connection", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const baseUrl = yield* serverUrl
      const trigger = yield* createTrigger(env, { name: "cut", heartbeatTimeoutSeconds: 5 })
      const { token, workerId } = yield* registerWorker(env)
      const { factory, sockets } = recording()
      const release = yield* Deferred.make<void>()
      const started = yield* Deferred.make<void>()
      const calls = yield* Ref.make(0)
      const worker = yield* runWorker({
        baseUrl,
        credentials: { workerId, token: Redacted.make(token) },
        transport: "channel",
        webSocket: factory,
        handler: (run) =>
          Ref.update(calls, (n) => n + 1).pipe(
            Effect.zipRight(Deferred.succeed(started, undefined)),
            Effect.zipRight(Deferred.await(release)),
            Effect.as({ status: "succeeded" as const, stdout: `survived ${run.id}` })
          )
      }).pipe(Effect.provide(fetchLayer), Effect.fork)
      const first = yield* requestRun(env, trigger.id)
      yield* Deferred.await(started)
      sockets[0].terminate()
      // Past the heartbeat timeout (5 s): only the heartbeats over the new connection keep the run alive.
      yield* Effect.sleep("6500 millis")
      expect(sockets.length).toBeGreaterThanOrEqual(2)
      yield* Deferred.succeed(release, undefined)
      const run = yield* waitForRun(env, trigger.id, first, isTerminal)
      expect(run).toMatchObject({ status: "succeeded", shortMessage: `survived ${first}` })
      expect(run.lastHeartbeatAt).not.toBeNull()
      const second = yield* requestRun(env, trigger.id)
      expect(yield* waitForRun(env, trigger.id, second, isTerminal)).toMatchObject({ status: "succeeded", shortMessage: `survived ${second}` })
      expect(yield* Ref.get(calls)).toBe(2)
      yield* Fiber.interrupt(worker)
    }), 40_000)

  it.effect("a complete whose answer is lost with its connection is sent again and refused: the run completes once", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const baseUrl = yield* serverUrl
      const trigger = yield* createTrigger(env, { name: "lost answer" })
      const { token, workerId } = yield* registerWorker(env)
      const { factory, sockets } = recording((sent) => sent.includes("\"Complete\""))
      const handled = yield* Ref.make(0)
      const worker = yield* runWorker({
        baseUrl,
        credentials: { workerId, token: Redacted.make(token) },
        transport: "channel",
        webSocket: factory,
        handler: () => Effect.as(Ref.update(handled, (n) => n + 1), { status: "succeeded" as const, stdout: "first and only" })
      }).pipe(Effect.provide(fetchLayer), Effect.fork)
      const runId = yield* requestRun(env, trigger.id)
      const run = yield* waitForRun(env, trigger.id, runId, isTerminal)
      expect(run).toMatchObject({ status: "succeeded", shortMessage: "first and only" })
      // The worker noticed the cut and reconnected (where its complete was refused: the run had ended).
      yield* eventually("a second connection", Effect.sync(() => sockets.length), (n) => n >= 2)
      const again = yield* requestRun(env, trigger.id)
      expect(yield* waitForRun(env, trigger.id, again, isTerminal)).toMatchObject({ status: "succeeded" })
      expect(yield* Ref.get(handled)).toBe(2)
      yield* Fiber.interrupt(worker)
    }), 30_000)
})

withLayer(layer(), { excludeTestServices: true })("worker SDK: failures and refusals", (it) => {
  it.effect("a defect sent over the channel (as for a database failure) does not stop the worker: it reconnects and completes its runs", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const baseUrl = yield* serverUrl
      const trigger = yield* createTrigger(env, { name: "defect", heartbeatTimeoutSeconds: 5 })
      const { token, workerId } = yield* registerWorker(env)
      const { factory, injected } = defectAfter("\"Heartbeat\"")
      const worker = yield* runWorker({
        baseUrl,
        credentials: { workerId, token: Redacted.make(token) },
        transport: "channel",
        webSocket: factory,
        heartbeatFraction: 0.1,
        handler: (run) => Effect.as(Effect.sleep("1500 millis"), { status: "succeeded" as const, stdout: `after ${run.id}` })
      }).pipe(Effect.provide(fetchLayer), Effect.fork)
      const first = yield* requestRun(env, trigger.id)
      expect(yield* waitForRun(env, trigger.id, first, isTerminal)).toMatchObject({ status: "succeeded", shortMessage: `after ${first}` })
      expect(injected()).toBe(true)
      const second = yield* requestRun(env, trigger.id)
      expect(yield* waitForRun(env, trigger.id, second, isTerminal)).toMatchObject({ status: "succeeded", shortMessage: `after ${second}` })
      expect(worker.unsafePoll()).toBeNull()
      yield* Fiber.interrupt(worker)
    }), 40_000)

  for (const transport of ["channel", "rest"] as const) {
    it.effect(`${transport}: a worker revoked while it holds a run stops at its next call, with the revocation message`, () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const baseUrl = yield* serverUrl
        const trigger = yield* createTrigger(env, { name: `revoked ${transport}`, heartbeatTimeoutSeconds: 5 })
        const { token, workerId } = yield* registerWorker(env)
        const started = yield* Deferred.make<void>()
        const worker = yield* runWorker({
          baseUrl,
          credentials: { workerId, token: Redacted.make(token) },
          transport,
          webSocket: nodeWebSocket,
          // A heartbeat every second: the next call after the revocation comes within one.
          heartbeatFraction: 0.2,
          handler: () => Effect.zipRight(Deferred.succeed(started, undefined), Effect.never)
        }).pipe(Effect.provide(fetchLayer), Effect.fork)
        yield* requestRun(env, trigger.id)
        yield* Deferred.await(started)
        const revokedAt = Date.now()
        const revoked = yield* call("DELETE", `/api/v1/workspaces/${env.workspaceId}/workers/${workerId}`, { cookie: env.user.cookie })
        expect(revoked.status).toBe(204)
        const exit = yield* Fiber.await(worker).pipe(Effect.timeout("20 seconds"))
        const stoppedAfterMs = Date.now() - revokedAt
        expect(exit._tag).toBe("Failure")
        expect(JSON.stringify(exit)).toContain("WorkerUnauthorized")
        expect(JSON.stringify(exit)).toContain("revoked")
        expect(stoppedAfterMs).toBeLessThan(5000)
      }), 40_000)
  }
})

describe("worker SDK with the channel switched off", () => {
  withLayer(layer().pipe(Layer.provide(Layer.succeed(ChannelEnabled, false))), { excludeTestServices: true })("fallback", (it) => {
    it.effect("the service does not name a channel, and the worker polls over REST", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const baseUrl = yield* serverUrl
        const trigger = yield* createTrigger(env, { name: "rest" })
        const { token, workerId } = yield* registerWorker(env)
        const me = yield* call("GET", "/api/v1/workers/me", { bearer: token })
        expect(me.status).toBe(200)
        expect(me.headers["x-worker-channel"]).toBeUndefined()
        expect((yield* call("GET", "/api/v1/workers/me/channel", { bearer: token })).status).toBe(404)
        const worker = yield* runWorker({
          baseUrl,
          credentials: { workerId, token: Redacted.make(token) },
          webSocket: nodeWebSocket,
          handler: () => Effect.succeed({ status: "succeeded" as const, stdout: "over REST" })
        }).pipe(Effect.provide(fetchLayer), Effect.fork)
        const runId = yield* requestRun(env, trigger.id)
        const run = yield* waitForRun(env, trigger.id, runId, isTerminal)
        expect(run).toMatchObject({ status: "succeeded", shortMessage: "over REST" })
        // Claimed by one REST call, started by the next.
        expect(run.startedAt).not.toBe(run.claimedAt)
        yield* Fiber.interrupt(worker)
      }), 30_000)
  })
})
