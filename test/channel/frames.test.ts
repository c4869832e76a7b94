import { expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Redacted from "effect/Redacted"
import type { WebSocketFactory } from "../../src/WorkerSdk/Channel.js"
import { runWorker } from "../../src/WorkerSdk/WorkerSdk.js"
import { createTrigger, registerWorker, setupEnvironment } from "../support/Fixtures.js"
import { layer } from "../support/TestApp.js"
import { fetchLayer, isTerminal, requestRun, serverUrl, waitForRun } from "../sdk/support.js"
import { nodeWebSocket } from "./support.js"

/** The `ws` client, counting the frames each way by message: `Request:<rpc>`, `Ack`, `Chunk`, `Exit`, ... */
const counting = () => {
  const sent = new Map<string, number>()
  const received = new Map<string, number>()
  const count = (into: Map<string, number>, data: unknown) => {
    const message = JSON.parse(String(data))
    const name = message._tag === "Request" ? `Request:${message.tag}` : String(message._tag)
    into.set(name, (into.get(name) ?? 0) + 1)
  }
  const factory: WebSocketFactory = (url, options) => {
    const socket: any = nodeWebSocket(url, options)
    const send = socket.send.bind(socket)
    socket.send = (data: unknown, ...rest: Array<unknown>) => {
      count(sent, data)
      return send(data, ...rest)
    }
    const add = socket.addEventListener.bind(socket)
    socket.addEventListener = (type: string, listener: (event: any) => void, ...rest: Array<unknown>) =>
      add(type, type === "message" ? (event: any) => {
        count(received, event.data)
        listener(event)
      } : listener, ...rest)
    return socket
  }
  const total = (of: Map<string, number>) => [...of.values()].reduce((sum, n) => sum + n, 0)
  return { factory, sent, received, total }
}

const runs = 100

/**
 * What the worker channel costs on the wire at a fixed load: 100 runs
 * waiting, a worker SDK with 20 slots and a handler that returns at once.
 * Pushes carry several runs each, the completes that finish while one is in
 * flight go out together, and a complete gives back its runs' slots, so no
 * `Slots` message is needed: well under one frame per run each way. A change
 * that sends a message per run (or a `Slots` per complete) fails here.
 */
withLayer(layer(), { excludeTestServices: true })("worker channel frames", (it) => {
  it.effect("100 runs through a 20-slot SDK worker: fewer than half a frame per run each way, no Slots message", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const baseUrl = yield* serverUrl
      const trigger = yield* createTrigger(env, { name: "frames" })
      const { token, workerId } = yield* registerWorker(env)
      const runIds = yield* Effect.forEach(Array.from({ length: runs }), () => requestRun(env, trigger.id), { concurrency: 10 })
      const wire = counting()
      const worker = yield* runWorker({
        baseUrl,
        credentials: { workerId, token: Redacted.make(token) },
        webSocket: wire.factory,
        concurrency: 20,
        handler: () => Effect.succeed({ status: "succeeded" as const })
      }).pipe(Effect.provide(fetchLayer), Effect.fork)
      for (const runId of runIds) {
        expect(yield* waitForRun(env, trigger.id, runId, isTerminal, 60)).toMatchObject({ status: "succeeded", workerId })
      }
      yield* Fiber.interrupt(worker)

      const sent = Object.fromEntries(wire.sent)
      const received = Object.fromEntries(wire.received)
      // One subscription; every slot went back with a complete.
      expect(sent["Request:Runs"]).toBe(1)
      expect(sent["Request:Slots"] ?? 0).toBe(0)
      expect(sent["Request:Start"] ?? 0).toBe(0)
      // Batched both ways: a push carries several runs, a complete several completions.
      expect(received["Chunk"]).toBeLessThanOrEqual(runs / 4)
      expect(sent["Request:Complete"]).toBeLessThanOrEqual(runs / 4)
      expect(wire.total(wire.sent)).toBeLessThan(runs / 2)
      expect(wire.total(wire.received)).toBeLessThan(runs / 2)
    }), 90_000)
})
