import { expect, layer as withLayer } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { channelHeader, channelPath } from "../../src/Contract/WorkerChannelRpcs.js"
import { createTrigger, registerWorker, setupEnvironment } from "../support/Fixtures.js"
import { call, layer } from "../support/TestApp.js"
import { isTerminal, requestRun, serverUrl, waitForRun } from "../sdk/support.js"
import { eventually, receiver } from "../webhooks/support.js"
import { channel, refusedUpgrade } from "./support.js"

const secret = "channel-webhook-secret-0123456789"

withLayer(layer({ webhookAllowPrivateNetworks: true }), { excludeTestServices: true })("worker channel", (it) => {
  it.scoped("a requested run is pushed claimed and started, completed over the channel, and its webhook delivered", () =>
    Effect.gen(function*() {
      const rx = yield* receiver
      const env = yield* setupEnvironment()
      const baseUrl = yield* serverUrl
      const worker = yield* registerWorker(env)
      const trigger = yield* createTrigger(env, { name: "pushed", input: { n: 7 }, webhookUrl: rx.url("/done"), webhookSecret: secret })
      const me = yield* call("GET", "/api/v1/workers/me", { bearer: worker.token })
      expect(me.status).toBe(200)
      expect(me.headers[channelHeader]).toBe(channelPath)
      expect(me.body.id).toBe(worker.workerId)

      const client = yield* channel(baseUrl, worker.token)
      const pushed = yield* client.Runs({ slots: 1 }).pipe(Stream.take(1), Stream.runCollect, Effect.fork)
      const runId = yield* requestRun(env, trigger.id)
      const [event] = Chunk.toReadonlyArray(yield* Fiber.join(pushed))
      expect(event!.runs.map((run) => run.id)).toEqual([runId])
      expect(event!.runs[0]).toMatchObject({ status: "running", workerId: worker.workerId, trigger: { id: trigger.id, name: "pushed", input: { n: 7 } } })

      const beat = yield* client.Heartbeat({ runIds: [runId] })
      expect(beat.rejected).toEqual([])
      expect(beat.runs[0]!.lastHeartbeatAt).not.toBeNull()
      const done = yield* client.Complete({ runs: [{ runId, status: "succeeded", stdout: "over the channel", costUsd: "0.5" }] })
      expect(done.rejected).toEqual([])
      expect(done.runs[0]).toMatchObject({ id: runId, status: "succeeded", shortMessage: "over the channel", costUsd: "0.5" })

      const run = yield* waitForRun(env, trigger.id, runId, isTerminal)
      expect(run.status).toBe("succeeded")
      const [delivered] = yield* eventually("webhook", Effect.sync(() => rx.received("/done")), (list) => list.length > 0)
      expect(JSON.parse(delivered!.raw.toString("utf8"))).toMatchObject({ runId, status: "succeeded", shortMessage: "over the channel" })
    }))

  it.scoped("refusals carry the REST status and error body for each run", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const baseUrl = yield* serverUrl
      const worker = yield* registerWorker(env)
      const other = yield* registerWorker(env, "other")
      const trigger = yield* createTrigger(env, { name: "rules" })
      const client = yield* channel(baseUrl, worker.token)
      const pushed = yield* client.Runs({ slots: 1 }).pipe(Stream.take(1), Stream.runCollect, Effect.fork)
      const runId = yield* requestRun(env, trigger.id)
      yield* Fiber.join(pushed)

      // Already running: start is a 409, as over REST (same body).
      const rest = yield* call("POST", `/api/v1/workers/${worker.workerId}/runs/${runId}/start`, { bearer: worker.token })
      expect(rest.status).toBe(409)
      const started = yield* client.Start({ runIds: [runId, "not-a-uuid", "0190d2c4-0000-7000-8000-000000000000"] })
      expect(started.runs).toEqual([])
      expect(started.rejected).toEqual(expect.arrayContaining([
        { runId, status: 409, error: rest.body.error },
        { runId: "not-a-uuid", status: 404, error: "run not found" },
        { runId: "0190d2c4-0000-7000-8000-000000000000", status: 404, error: "run not found" }
      ]))
      // Another worker's run is not found for this one, over either protocol.
      const otherClient = yield* channel(baseUrl, other.token)
      const foreign = yield* otherClient.Heartbeat({ runIds: [runId] })
      const foreignRest = yield* call("POST", `/api/v1/workers/${other.workerId}/runs/${runId}/heartbeat`, { bearer: other.token })
      expect(foreign.rejected).toEqual([{ runId, status: foreignRest.status, error: foreignRest.body.error }])
      expect(foreignRest.status).toBe(404)

      // A second complete is refused as REST refuses it; the first stands.
      const first = yield* client.Complete({ runs: [{ runId, status: "failed", stderr: "boom", faultClass: "infra" }] })
      expect(first.runs.map((run) => run.status)).toEqual(["failed"])
      const again = yield* client.Complete({ runs: [{ runId, status: "succeeded" }] })
      const againRest = yield* call("POST", `/api/v1/workers/${worker.workerId}/runs/${runId}/complete`, { bearer: worker.token, body: { status: "succeeded" } })
      expect(againRest.status).toBe(409)
      expect(again).toEqual({ runs: [], rejected: [{ runId, status: 409, error: againRest.body.error }] })
      // A request the REST call would answer 400 fails with the same ValidationError.
      const twice = yield* Effect.flip(client.Complete({ runs: [{ runId, status: "succeeded" }, { runId, status: "failed" }] }))
      expect(twice).toMatchObject({ error: "validation failed", details: { fieldErrors: { runs: [`runs[1]: run ${runId} is named twice`] } } })
    }))

  it.scoped("the upgrade needs a valid wkt_ token (401 with the REST body) and an upgrade (426)", () =>
    Effect.gen(function*() {
      const baseUrl = yield* serverUrl
      const missing = yield* refusedUpgrade(baseUrl, {})
      expect(missing).toEqual({ status: 401, body: { error: "authentication required" } })
      const wrong = yield* refusedUpgrade(baseUrl, { authorization: "Bearer wkt_not-a-real-token" })
      expect(wrong).toEqual({ status: 401, body: { error: "invalid worker token" } })
      const plain = yield* call("GET", channelPath)
      expect(plain.status).toBe(426)
      expect(plain.body.error).toContain("WebSocket")
    }))

  it.scoped("revoking the worker closes its channel, and the token no longer opens one", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const baseUrl = yield* serverUrl
      const worker = yield* registerWorker(env)
      const client = yield* channel(baseUrl, worker.token)
      const stream = yield* client.Runs({ slots: 1 }).pipe(Stream.runDrain, Effect.exit, Effect.fork)
      // The connection is open and authenticated once a call answers.
      expect(yield* client.Slots({ slots: 0 })).toBeUndefined()
      const revoked = yield* call("DELETE", `/api/v1/workspaces/${env.workspaceId}/workers/${worker.workerId}`, { cookie: env.user.cookie })
      expect(revoked.status).toBe(204)
      const exit = yield* Fiber.join(stream)
      expect(Exit.isFailure(exit)).toBe(true)
      expect(Option.getOrUndefined(Exit.causeOption(exit).pipe(Option.flatMap((cause) => Option.some(String(cause)))))).toContain("RpcClientError")
      const refused = yield* refusedUpgrade(baseUrl, { authorization: `Bearer ${worker.token}` })
      expect(refused.status).toBe(401)
    }))
})
