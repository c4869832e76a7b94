import * as SqlClient from "@effect/sql/SqlClient"
import { expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { verify } from "../../src/Webhooks/Signer.js"
import { addMember, createTrigger, mintApiKey, registerWorker, setupEnvironment, type TestEnv } from "../support/Fixtures.js"
import { call, layer, registerUser } from "../support/TestApp.js"
import { eventually, receiver } from "./support.js"

type Worker = { readonly workerId: string; readonly token: string }

const secret = "redelivery-secret-0123456789"

const requestRun = (env: TestEnv, triggerId: string) =>
  Effect.gen(function*() {
    const res = yield* call("POST", `/api/v1/triggers/${triggerId}/run`, { cookie: env.user.cookie })
    expect(res.status).toBe(201)
    return res.body.id as string
  })

const op = (worker: Worker, runId: string, step: "claim" | "start" | "complete", body?: unknown) =>
  call("POST", `/api/v1/workers/${worker.workerId}/runs/${runId}/${step}`, { bearer: worker.token, body })

/** A run of the trigger, taken by the worker to its end. */
const finishedRun = (env: TestEnv, triggerId: string, worker: Worker) =>
  Effect.gen(function*() {
    const runId = yield* requestRun(env, triggerId)
    expect((yield* op(worker, runId, "claim")).status).toBe(200)
    expect((yield* op(worker, runId, "start")).status).toBe(200)
    expect((yield* op(worker, runId, "complete", { status: "failed", stdout: "out", stderr: "err", costUsd: "1.25" })).status).toBe(200)
    return runId
  })

const redeliver = (runId: string, auth: { cookie?: string; bearer?: string }) =>
  call("POST", `/api/v1/runs/${runId}/webhook-deliveries`, auth)

const history = (env: TestEnv, triggerId: string) =>
  Effect.map(call("GET", `/api/v1/triggers/${triggerId}/webhook-deliveries`, { cookie: env.user.cookie }), (res) => res.body.items as Array<any>)

withLayer(layer({ webhookAllowPrivateNetworks: true }), { excludeTestServices: true })("webhook redelivery", (it) => {
  it.scoped("POST /runs/{id}/webhook-deliveries: 202, the same bytes signed with the run's secret, a second record with trigger manual; audited", () =>
    Effect.gen(function*() {
      const rx = yield* receiver
      const env = yield* setupEnvironment()
      const worker = yield* registerWorker(env)
      const trigger = yield* createTrigger(env, { webhookUrl: rx.url("/hook"), webhookSecret: secret })
      const runId = yield* finishedRun(env, trigger.id, worker)
      const first = yield* eventually("the first record", history(env, trigger.id), (items) => items.length === 1)
      expect(first[0]).toMatchObject({ runId, trigger: "automatic", outcome: "delivered" })
      // A later change of the trigger's secret does not change what the run signs with.
      expect((yield* call("PATCH", `/api/v1/triggers/${trigger.id}`, {
        cookie: env.user.cookie,
        body: { webhookSecret: "a-newer-secret-9876543210" }
      })).status).toBe(200)

      const operator = yield* addMember(env, "operator")
      const res = yield* redeliver(runId, { cookie: operator.cookie })
      expect(res.status).toBe(202)
      expect(res.body).toEqual({ runId, triggerId: trigger.id, trigger: "manual" })
      const both = yield* eventually("the second record", history(env, trigger.id), (items) => items.length === 2)
      expect(both.map((d) => [d.runId, d.trigger, d.outcome, d.attemptCount])).toEqual([
        [runId, "manual", "delivered", 1],
        [runId, "automatic", "delivered", 1]
      ])
      expect(both[0].id).not.toBe(both[1].id)
      const calls = rx.received("/hook")
      expect(calls).toHaveLength(2)
      expect(calls[1]!.raw.equals(calls[0]!.raw)).toBe(true)
      expect(JSON.parse(calls[0]!.raw.toString("utf8"))).toMatchObject({ runId, status: "failed", costUsd: "1.25" })
      for (const c of calls) expect(verify(secret, c.raw, c.headers["x-service-signature"] as string)).toBe(true)

      // Again, by an operator key: a third delivery and record of its own.
      const key = yield* mintApiKey(env, "operator")
      expect((yield* redeliver(runId, { bearer: key })).status).toBe(202)
      const three = yield* eventually("the third record", history(env, trigger.id), (items) => items.length === 3)
      expect(three.map((d) => d.trigger)).toEqual(["manual", "manual", "automatic"])
      expect(rx.received("/hook")).toHaveLength(3)

      const sql = yield* SqlClient.SqlClient
      const audit = yield* sql<{ action: string; actor_type: string; actor_id: string; metadata: any }>`
        SELECT action, actor_type, actor_id, metadata FROM audit_log WHERE target_id = ${runId} AND action = 'webhook.redelivered' ORDER BY id`
      expect(audit.map((a) => [a.actor_type, a.metadata])).toEqual([
        ["user", { triggerId: trigger.id }],
        ["api_key", { triggerId: trigger.id }]
      ])
      expect(audit[0]!.actor_id).toBe(operator.id)
    }), { timeout: 120_000 })

  it.scoped("a failing receiver: the redelivery retries on the same schedule and records its own failure", () =>
    Effect.gen(function*() {
      const rx = yield* receiver
      const env = yield* setupEnvironment()
      const worker = yield* registerWorker(env)
      const trigger = yield* createTrigger(env, { webhookUrl: rx.url("/flaky"), webhookSecret: secret })
      // The first delivery fails for good (a 4xx is not retried); the redelivery meets a 503, then a 200.
      rx.script("/flaky", [404, 503, 200])
      const runId = yield* finishedRun(env, trigger.id, worker)
      yield* eventually("the failed record", history(env, trigger.id), (items) => items.length === 1)
      expect((yield* redeliver(runId, { cookie: env.user.cookie })).status).toBe(202)
      const items = yield* eventually("the redelivered record", history(env, trigger.id), (items) => items.length === 2, 20_000)
      expect(items.map((d) => [d.trigger, d.outcome, d.statusCode, d.attemptCount])).toEqual([
        ["manual", "delivered", 200, 2],
        ["automatic", "failed", 404, 1]
      ])
    }), { timeout: 120_000 })

  it.scoped("409 while a delivery is pending and for a run that has not ended; 404 without a webhook; viewer 403; strangers 404", () =>
    Effect.gen(function*() {
      const rx = yield* receiver
      rx.script("/hang", ["hang"])
      const env = yield* setupEnvironment()
      const worker = yield* registerWorker(env)
      const hooked = yield* createTrigger(env, { webhookUrl: rx.url("/hang"), webhookSecret: secret })
      const owner = { cookie: env.user.cookie }

      // Not ended yet: its webhook is still to come.
      const active = yield* requestRun(env, hooked.id)
      const early = yield* redeliver(active, owner)
      expect(early.status).toBe(409)
      expect(early.body.error).toMatch(/not ended/)

      // Ended, its delivery hanging on the receiver: pending.
      expect((yield* op(worker, active, "claim")).status).toBe(200)
      expect((yield* op(worker, active, "start")).status).toBe(200)
      expect((yield* op(worker, active, "complete", { status: "succeeded" })).status).toBe(200)
      yield* eventually("the hanging POST", Effect.sync(() => rx.received("/hang").length), (n) => n === 1)
      const pending = yield* redeliver(active, owner)
      expect(pending.status).toBe(409)
      expect(pending.body.error).toMatch(/pending/)

      const plain = yield* createTrigger(env, { name: "no webhook" })
      const quiet = yield* finishedRun(env, plain.id, worker)
      const noHook = yield* redeliver(quiet, owner)
      expect(noHook.status).toBe(404)
      expect(noHook.body.error).toMatch(/no webhook/)

      const viewer = yield* addMember(env, "viewer")
      expect((yield* redeliver(active, { cookie: viewer.cookie })).status).toBe(403)
      const viewerKey = yield* mintApiKey(env, "viewer")
      expect((yield* redeliver(active, { bearer: viewerKey })).status).toBe(403)
      const stranger = yield* registerUser("stranger")
      const hidden = yield* redeliver(active, { cookie: stranger.cookie })
      expect(hidden.status).toBe(404)
      expect(hidden.body).toEqual({ error: "run not found" })
      expect((yield* redeliver("01900000-0000-7000-8000-000000000000", owner)).status).toBe(404)
      expect((yield* redeliver("not-a-uuid", owner)).status).toBe(404)
      expect((yield* call("POST", `/api/v1/runs/${active}/webhook-deliveries`)).status).toBe(401)

      // Nothing was queued by the refused calls, and nothing audited.
      const sql = yield* SqlClient.SqlClient
      const audited = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM audit_log WHERE action = 'webhook.redelivered' AND target_id = ${active}`
      expect(audited[0]!.n).toBe(0)
      const outbox = yield* sql<{ trigger: string }>`SELECT trigger FROM webhook_outbox WHERE run_id = ${active}`
      expect(outbox.map((row) => row.trigger)).toEqual(["automatic"])
    }), { timeout: 120_000 })

  it.scoped("GET /runs/{id}/webhook-deliveries: that run's records only, newest first, paged; viewer may read, strangers 404", () =>
    Effect.gen(function*() {
      const rx = yield* receiver
      const env = yield* setupEnvironment()
      const worker = yield* registerWorker(env)
      const trigger = yield* createTrigger(env, { webhookUrl: rx.url("/runs"), webhookSecret: secret })
      const runId = yield* finishedRun(env, trigger.id, worker)
      const other = yield* finishedRun(env, trigger.id, worker)
      yield* eventually("both first records", history(env, trigger.id), (items) => items.length === 2)
      expect((yield* redeliver(runId, { cookie: env.user.cookie })).status).toBe(202)
      const ofRun = (query: string, auth: { cookie?: string; bearer?: string }) =>
        call("GET", `/api/v1/runs/${runId}/webhook-deliveries${query}`, auth)
      const both = yield* eventually("the run's two records", Effect.map(ofRun("", { cookie: env.user.cookie }), (res) => res.body.items as Array<any>),
        (items) => items.length === 2)
      expect(both.map((d) => [d.runId, d.trigger])).toEqual([[runId, "manual"], [runId, "automatic"]])

      // Paged with the list conventions.
      const first = yield* ofRun("?limit=1", { cookie: env.user.cookie })
      expect(first.status).toBe(200)
      expect(first.body.items.map((d: any) => d.id)).toEqual([both[0].id])
      expect(first.body.nextCursor).toEqual(expect.any(String))
      const second = yield* ofRun(`?limit=1&cursor=${first.body.nextCursor}`, { cookie: env.user.cookie })
      expect(second.body).toEqual({ items: [both[1]], nextCursor: null })
      expect((yield* ofRun("?cursor=nonsense", { cookie: env.user.cookie })).status).toBe(400)

      // The other run's record is its own.
      const others = yield* call("GET", `/api/v1/runs/${other}/webhook-deliveries`, { cookie: env.user.cookie })
      expect(others.body.items.map((d: any) => d.runId)).toEqual([other])

      const viewerKey = yield* mintApiKey(env, "viewer")
      expect((yield* ofRun("", { bearer: viewerKey })).status).toBe(200)
      const stranger = yield* registerUser("stranger")
      const hidden = yield* ofRun("", { cookie: stranger.cookie })
      expect(hidden.status).toBe(404)
      expect(hidden.body).toEqual({ error: "run not found" })
      expect((yield* call("GET", "/api/v1/runs/01900000-0000-7000-8000-000000000000/webhook-deliveries", { cookie: env.user.cookie })).status).toBe(404)
      expect((yield* call("GET", `/api/v1/runs/${runId}/webhook-deliveries`)).status).toBe(401)
    }), { timeout: 120_000 })
})
