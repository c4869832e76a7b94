import { describe, expect, layer as withLayer } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import { Notifications } from "../../src/Db/Notifications.js"
import { outboxChannel } from "../../src/Webhooks/Outbox.js"
import { uuidv7 } from "../../src/Crypto/Ids.js"
import { verify } from "../../src/Webhooks/Signer.js"
import { addMember, createTrigger, registerWorker, setupEnvironment, type TestEnv } from "../support/Fixtures.js"
import { call, layer, registerUser, type Response } from "../support/TestApp.js"
import { eventually, receiver } from "./support.js"

type Worker = { readonly workerId: string; readonly token: string }

const secret = "end-to-end-secret-0123456789"

const requestRun = (env: TestEnv, triggerId: string) =>
  Effect.gen(function*() {
    const res = yield* call("POST", `/api/v1/triggers/${triggerId}/run`, { cookie: env.user.cookie })
    expect(res.status).toBe(201)
    return res.body.id as string
  })

const op = (worker: Worker, runId: string, step: "start" | "complete", body?: unknown) =>
  call("POST", `/api/v1/workers/${worker.workerId}/runs/${runId}/${step}`, { bearer: worker.token, body })

/** Waits for the next run assigned to the worker and claims it. */
const claimNext = (worker: Worker) =>
  Effect.gen(function*() {
    const res = yield* call("GET", `/api/v1/workers/${worker.workerId}/poll?wait=10&claim=true`, { bearer: worker.token })
    expect(res.status).toBe(200)
    expect(res.body.runs).toHaveLength(1)
    return res.body.runs[0].id as string
  })

const finish = (worker: Worker, runId: string, status: "succeeded" | "failed") =>
  Effect.gen(function*() {
    expect((yield* op(worker, runId, "start")).status).toBe(200)
    const res = yield* op(worker, runId, "complete", { status, stdout: `out of ${runId}`, stderr: "err", costUsd: "0.5" })
    expect(res.status).toBe(200)
    return res
  })

const deliveries = (env: TestEnv, triggerId: string, query = "", cookie = env.user.cookie) =>
  call("GET", `/api/v1/triggers/${triggerId}/webhook-deliveries${query}`, { cookie })

withLayer(layer({ webhookAllowPrivateNetworks: true }), { excludeTestServices: true })("webhooks end to end", (it) => {
  it.scoped("auto-retry chain fail, fail, succeed: three signed calls and three records with distinct runIds", () =>
    Effect.gen(function*() {
      const rx = yield* receiver
      const env = yield* setupEnvironment()
      const worker = yield* registerWorker(env)
      const trigger = yield* createTrigger(env, { maxRetries: 2, webhookUrl: rx.url("/chain"), webhookSecret: secret })
      expect(trigger.hasWebhookSecret).toBe(true)
      yield* requestRun(env, trigger.id)
      const statuses = ["failed", "failed", "succeeded"] as const
      const runIds: Array<string> = []
      for (const status of statuses) {
        const runId = yield* claimNext(worker)
        runIds.push(runId)
        yield* finish(worker, runId, status)
      }
      expect(new Set(runIds).size).toBe(3)
      const page = yield* eventually(
        "three records",
        deliveries(env, trigger.id),
        (res) => res.status === 200 && res.body.items.length === 3
      )
      // Newest first, one record per terminal run.
      expect(page.body.items.map((d: any) => d.runId)).toEqual([...runIds].reverse())
      expect(page.body.nextCursor).toBeNull()
      const first = page.body.items[2]
      expect(Object.keys(first).sort()).toEqual(
        ["attemptCount", "createdAt", "errorMessage", "id", "outcome", "responseBody", "runId", "statusCode", "trigger", "triggerId", "url"]
      )
      expect(first).toMatchObject({
        triggerId: trigger.id,
        url: rx.url("/chain"),
        outcome: "delivered",
        statusCode: 200,
        responseBody: "reply 200",
        attemptCount: 1,
        errorMessage: null
      })
      expect(new Date(first.createdAt).toISOString()).toBe(first.createdAt)
      const calls = rx.received("/chain")
      expect(calls).toHaveLength(3)
      const bodies = calls.map((c) => JSON.parse(c.raw.toString("utf8")))
      expect(bodies.map((b) => b.runId).sort()).toEqual([...runIds].sort())
      expect(bodies.map((b) => b.status).sort()).toEqual(["failed", "failed", "succeeded"])
      for (const c of calls) expect(verify(secret, c.raw, c.headers["x-service-signature"] as string)).toBe(true)
      const succeeded = bodies.find((b) => b.status === "succeeded")
      expect(succeeded).toMatchObject({ faultClass: "none", errorMessage: null, costUsd: "0.5", triggerId: trigger.id })
      expect(succeeded.shortMessage).toBe(`out of ${succeeded.runId}`)
      expect(bodies.find((b) => b.status === "failed")).toMatchObject({ faultClass: "client", errorMessage: "err" })
    }), { timeout: 30_000 })

  it.scoped("complete answers at once while the receiver hangs", () =>
    Effect.gen(function*() {
      const rx = yield* receiver
      rx.script("/hang", ["hang"])
      const env = yield* setupEnvironment()
      const worker = yield* registerWorker(env)
      const trigger = yield* createTrigger(env, { webhookUrl: rx.url("/hang"), webhookSecret: secret })
      yield* requestRun(env, trigger.id)
      const runId = yield* claimNext(worker)
      expect((yield* op(worker, runId, "start")).status).toBe(200)
      const started = Date.now()
      const done = yield* op(worker, runId, "complete", { status: "succeeded" })
      expect(done.status).toBe(200)
      // A completion that waited for the delivery would take the attempt's 10 s
      // timeout; half of that leaves room for a machine at load 16.
      expect(Date.now() - started).toBeLessThan(5_000)
      // The delivery did start, and is still waiting on the receiver.
      yield* eventually("the hanging POST", Effect.sync(() => rx.received("/hang").length), (n) => n === 1)
      const res = yield* deliveries(env, trigger.id)
      expect(res.body.items).toEqual([])
    }), { timeout: 20_000 })

  it.scoped("the instance that ends a run delivers its webhook itself: the row was handed to its loop, never announced", () =>
    Effect.gen(function*() {
      const rx = yield* receiver
      const notifications = yield* Notifications
      const heard: Array<string> = []
      const announced = yield* notifications.listen(outboxChannel).pipe(
        Stream.runForEach((runId) => Effect.sync(() => void heard.push(runId))),
        Effect.forkScoped
      )
      yield* Effect.sleep("200 millis")
      const env = yield* setupEnvironment()
      const worker = yield* registerWorker(env)
      const trigger = yield* createTrigger(env, { webhookUrl: rx.url("/own"), webhookSecret: secret })
      yield* requestRun(env, trigger.id)
      const runId = yield* claimNext(worker)
      yield* finish(worker, runId, "succeeded")
      const items = yield* eventually("the delivery record", Effect.map(deliveries(env, trigger.id), (r) => r.body.items), (i) => i.length === 1)
      expect(items[0]).toMatchObject({ runId, outcome: "delivered", attemptCount: 1 })
      expect(rx.received("/own")).toHaveLength(1)
      expect(heard).toEqual([])
      yield* Fiber.interrupt(announced)
    }), { timeout: 20_000 })

  it.scoped("changing the secret: the run that fired before signs with the old one, the next with the new one", () =>
    Effect.gen(function*() {
      const rx = yield* receiver
      const env = yield* setupEnvironment()
      const worker = yield* registerWorker(env)
      const trigger = yield* createTrigger(env, { webhookUrl: rx.url("/secret"), webhookSecret: "the-old-secret-0123456789" })
      const inFlight = yield* requestRun(env, trigger.id)
      const patched = yield* call("PATCH", `/api/v1/triggers/${trigger.id}`, {
        cookie: env.user.cookie,
        body: { webhookSecret: "the-new-secret-9876543210" }
      })
      expect(patched.status).toBe(200)
      const later = yield* requestRun(env, trigger.id)
      for (let i = 0; i < 2; i++) yield* finish(worker, yield* claimNext(worker), "succeeded")
      yield* eventually("two POSTs", Effect.sync(() => rx.received("/secret").length), (n) => n === 2)
      const byRun = new Map(rx.received("/secret").map((c) => [JSON.parse(c.raw.toString()).runId as string, c]))
      const old = byRun.get(inFlight)!
      const fresh = byRun.get(later)!
      expect(verify("the-old-secret-0123456789", old.raw, old.headers["x-service-signature"] as string)).toBe(true)
      expect(verify("the-new-secret-9876543210", fresh.raw, fresh.headers["x-service-signature"] as string)).toBe(true)
      expect(verify("the-new-secret-9876543210", old.raw, old.headers["x-service-signature"] as string)).toBe(false)
    }), { timeout: 30_000 })

  describe("GET /triggers/{id}/webhook-deliveries", () => {
    const seedRecords = (triggerId: string, n: number) =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        for (let i = 0; i < n; i++) {
          const runId = uuidv7()
          yield* sql`
            INSERT INTO runs (id, trigger_id, environment_id, status, timeout_seconds, heartbeat_timeout_seconds, max_retries, ended_at)
            SELECT ${runId}, id, environment_id, 'failed', 3600, 30, 0, now() FROM triggers WHERE id = ${triggerId}`
          yield* sql`
            INSERT INTO webhook_deliveries (id, run_id, trigger_id, url, outcome, status_code, response_body, attempt_count, error_message)
            VALUES (${uuidv7()}, ${runId}, ${triggerId}, 'https://example.com/hook', 'failed', 503, 'down', 3, 'HTTP 503')`
        }
      }).pipe(Effect.orDie)

    it.scoped("viewer+ reads it with cursor pagination; every row exactly once", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const trigger = yield* createTrigger(env, { webhookUrl: "https://example.com/hook", webhookSecret: secret })
        yield* seedRecords(trigger.id, 5)
        const viewer = yield* addMember(env, "viewer")
        const seen: Array<string> = []
        let cursor: string | null = null
        let pages = 0
        do {
          const res: Response = yield* deliveries(env, trigger.id, `?limit=2${cursor === null ? "" : `&cursor=${cursor}`}`, viewer.cookie)
          expect(res.status).toBe(200)
          expect(res.body.items.length).toBeLessThanOrEqual(2)
          seen.push(...res.body.items.map((d: any) => d.id))
          cursor = res.body.nextCursor
          pages++
        } while (cursor !== null && pages < 10)
        expect(pages).toBe(3)
        expect(seen).toHaveLength(5)
        expect([...seen].sort().reverse()).toEqual(seen)
        const one = (yield* deliveries(env, trigger.id, "?limit=1")).body.items[0]
        expect(one).toMatchObject({ outcome: "failed", statusCode: 503, responseBody: "down", attemptCount: 3, errorMessage: "HTTP 503" })
      }))

    it.scoped("400 for a bad cursor or limit; 401 without auth; 404 for unknown, malformed, invisible or deleted triggers", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const trigger = yield* createTrigger(env, {})
        const badCursor = yield* deliveries(env, trigger.id, "?cursor=not-a-cursor")
        expect(badCursor.status).toBe(400)
        expect(badCursor.body.details.fieldErrors.cursor).toBeDefined()
        for (const limit of ["0", "201", "abc"]) {
          const res = yield* deliveries(env, trigger.id, `?limit=${limit}`)
          expect(res.status).toBe(400)
          expect(res.body.error).toBeTypeOf("string")
        }
        const anonymous = yield* call("GET", `/api/v1/triggers/${trigger.id}/webhook-deliveries`)
        expect(anonymous.status).toBe(401)
        const unknown = yield* deliveries(env, "01900000-0000-7000-8000-000000000000")
        expect(unknown.status).toBe(404)
        expect(unknown.body).toEqual({ error: "trigger not found" })
        expect((yield* deliveries(env, "not-a-uuid")).status).toBe(404)
        const stranger = yield* registerUser("stranger")
        const hidden = yield* deliveries(env, trigger.id, "", stranger.cookie)
        expect(hidden.status).toBe(404)
        expect(hidden.body).toEqual({ error: "trigger not found" })
        const removed = yield* call("DELETE", `/api/v1/triggers/${trigger.id}`, { cookie: env.user.cookie })
        expect(removed.status).toBe(204)
        expect((yield* deliveries(env, trigger.id)).status).toBe(404)
      }))
  })
})

withLayer(layer(), { excludeTestServices: true })("webhook URL guard on save", (it) => {
  it.effect("refuses loopback, private, link-local and CGNAT webhook URLs with a 400 on webhookUrl", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      for (
        const url of [
          "http://127.0.0.1:8080/hook",
          "http://10.1.2.3/hook",
          "http://169.254.169.254/latest/meta-data",
          "http://100.64.0.1/hook",
          "http://[::1]/hook",
          "http://[fc00::1]/hook",
          "http://localhost/hook"
        ]
      ) {
        const res = yield* call("POST", `/api/v1/environments/${env.environmentId}/triggers`, {
          cookie: env.user.cookie,
          body: { name: "ssrf", webhookUrl: url }
        })
        expect(res.status, url).toBe(400)
        expect(Object.keys(res.body.details.fieldErrors)).toEqual(["webhookUrl"])
      }
      const ok = yield* call("POST", `/api/v1/environments/${env.environmentId}/triggers`, {
        cookie: env.user.cookie,
        body: { name: "public", webhookUrl: "https://93.184.216.34/hook" }
      })
      expect(ok.status).toBe(201)
    }))
})
