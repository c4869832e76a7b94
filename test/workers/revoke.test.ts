import * as SqlClient from "@effect/sql/SqlClient"
import { expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { addMember, createTrigger, mintApiKey, registerWorker, setupEnvironment, type TestEnv } from "../support/Fixtures.js"
import { call, layer, registerUser } from "../support/TestApp.js"
import { eventually, receiver } from "../webhooks/support.js"

type Worker = { readonly workerId: string; readonly token: string }

const workerPath = (env: TestEnv, worker: Worker) => `/api/v1/workspaces/${env.workspaceId}/workers/${worker.workerId}`

const requestRun = (env: TestEnv, triggerId: string) =>
  Effect.gen(function*() {
    const res = yield* call("POST", `/api/v1/triggers/${triggerId}/run`, { cookie: env.user.cookie })
    expect(res.status).toBe(201)
    return res.body.id as string
  })

const op = (worker: Worker, runId: string, step: "claim" | "start" | "heartbeat" | "complete", body?: unknown) =>
  call("POST", `/api/v1/workers/${worker.workerId}/runs/${runId}/${step}`, { bearer: worker.token, body })
const me = (worker: Worker) => call("GET", "/api/v1/workers/me", { bearer: worker.token })

const runRow = (runId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ status: string; worker_id: string | null; fault_class: string | null; attempt: number; retry_of_run_id: string | null }>`
      SELECT status, worker_id, fault_class, attempt, retry_of_run_id FROM runs WHERE id = ${runId}`).pipe(
    Effect.map((rows) => rows[0]!),
    Effect.orDie
  )

const retryOf = (runId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: string; status: string; worker_id: string | null; attempt: number }>`
      SELECT id, status, worker_id, attempt FROM runs WHERE retry_of_run_id = ${runId}`).pipe(Effect.orDie)

const listed = (env: TestEnv, qs = "") =>
  Effect.map(
    call("GET", `/api/v1/environments/${env.environmentId}/workers${qs}`, { cookie: env.user.cookie }),
    (res) => res.body.items.map((w: any) => [w.id, w.status])
  )

withLayer(layer({ webhookAllowPrivateNetworks: true }), { excludeTestServices: true })("revoking workers", (it) => {
  it.effect("DELETE: 204, the token is refused at once, listed as revoked for 24 hours, audited; admin+ only; 404 twice", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const w = yield* registerWorker(env, "leaked")
      const other = yield* registerWorker(env, "other")
      // Verified just now, so this instance trusts the token for a second.
      expect((yield* me(w)).status).toBe(200)

      const operator = yield* addMember(env, "operator")
      expect((yield* call("DELETE", workerPath(env, w), { cookie: operator.cookie })).status).toBe(403)
      const operatorKey = yield* mintApiKey(env, "operator")
      expect((yield* call("DELETE", workerPath(env, w), { bearer: operatorKey })).status).toBe(403)
      const stranger = yield* registerUser("stranger")
      expect((yield* call("DELETE", workerPath(env, w), { cookie: stranger.cookie })).status).toBe(404)
      const elsewhere = yield* setupEnvironment()
      expect((yield* call("DELETE", `/api/v1/workspaces/${elsewhere.workspaceId}/workers/${w.workerId}`, { cookie: env.user.cookie })).status)
        .toBe(404)
      expect((yield* me(w)).status).toBe(200)

      const admin = yield* addMember(env, "admin")
      const res = yield* call("DELETE", workerPath(env, w), { cookie: admin.cookie })
      expect(res.status).toBe(204)
      for (const path of ["/api/v1/workers/me", `/api/v1/workers/${w.workerId}/poll`]) {
        const refused = yield* call("GET", path, { bearer: w.token })
        expect(refused.status, path).toBe(401)
        expect(refused.body).toEqual({ error: "invalid worker token" })
      }
      expect((yield* me(other)).status).toBe(200)

      expect(yield* listed(env)).toEqual([[other.workerId, "online"], [w.workerId, "revoked"]])
      expect(yield* listed(env, "?status=revoked")).toEqual([[w.workerId, "revoked"]])
      expect(yield* listed(env, "?status=online")).toEqual([[other.workerId, "online"]])

      const sql = yield* SqlClient.SqlClient
      const audit = yield* sql<{ action: string; actor_type: string; actor_id: string; metadata: any }>`
        SELECT action, actor_type, actor_id, metadata FROM audit_log WHERE target_id = ${w.workerId} ORDER BY id`
      expect(audit.map((a) => a.action)).toEqual(["worker.registered", "worker.revoked"])
      expect(audit[1]).toMatchObject({ actor_type: "user", actor_id: admin.id, metadata: { label: "leaked" } })

      // Already revoked: nothing left to revoke or change.
      expect((yield* call("DELETE", workerPath(env, w), { cookie: admin.cookie })).status).toBe(404)
      expect((yield* call("PATCH", workerPath(env, w), { cookie: admin.cookie, body: { draining: true } })).status).toBe(404)

      // A day later it is no longer listed.
      yield* sql`UPDATE workers SET revoked_at = now() - interval '24 hours 1 minute' WHERE id = ${w.workerId}`
      expect(yield* listed(env)).toEqual([[other.workerId, "online"]])
      const ws = yield* call("GET", `/api/v1/workspaces/${env.workspaceId}/workers`, { cookie: env.user.cookie })
      expect(ws.body.items.map((x: any) => x.id)).toEqual([other.workerId])
    }))

  it.scoped("its assigned runs go back to the queue (and on to another worker); its claimed and running runs end timed_out, infra, retried, webhook sent", () =>
    Effect.gen(function*() {
      const rx = yield* receiver
      const env = yield* setupEnvironment()
      const w = yield* registerWorker(env, "revoked")
      const retried = yield* createTrigger(env, { name: "retried", maxRetries: 1, webhookUrl: rx.url("/revoked") })
      const once = yield* createTrigger(env, { name: "once", maxRetries: 0 })
      const assigned = yield* requestRun(env, once.id)
      const claimed = yield* requestRun(env, retried.id)
      const running = yield* requestRun(env, once.id)
      expect((yield* op(w, claimed, "claim")).status).toBe(200)
      expect((yield* op(w, running, "claim")).status).toBe(200)
      expect((yield* op(w, running, "start")).status).toBe(200)
      expect((yield* runRow(assigned)).status).toBe("assigned")
      // Another worker joins; nothing is queued, so it holds nothing yet.
      const next = yield* registerWorker(env, "next")

      expect((yield* call("DELETE", workerPath(env, w), { cookie: env.user.cookie })).status).toBe(204)

      // The assigned run went back to the queue and on to the other worker.
      expect(yield* runRow(assigned)).toMatchObject({ status: "assigned", worker_id: next.workerId })
      expect(yield* runRow(claimed)).toMatchObject({ status: "timed_out", fault_class: "infra", worker_id: w.workerId })
      expect(yield* runRow(running)).toMatchObject({ status: "timed_out", fault_class: "infra", worker_id: w.workerId })
      // Auto-retry applies: the run with a retry left has one, handed to the other worker; the other has none.
      const retries = yield* retryOf(claimed)
      expect(retries).toHaveLength(1)
      expect(retries[0]).toMatchObject({ attempt: 2, status: "assigned", worker_id: next.workerId })
      expect(yield* retryOf(running)).toEqual([])

      // The timeline says why: released from the revoked worker, ended for its revocation.
      const events = (runId: string) =>
        Effect.map(call("GET", `/api/v1/runs/${runId}/events`, { cookie: env.user.cookie }), (res) =>
          res.body.items.map((e: any) => [e.status, e.reason, e.workerId]))
      expect(yield* events(assigned)).toEqual([
        ["queued", "requested", null],
        ["assigned", "assigned", w.workerId],
        ["queued", "released", w.workerId],
        ["assigned", "assigned", next.workerId]
      ])
      expect((yield* events(claimed)).at(-1)).toEqual(["timed_out", "worker_revoked", w.workerId])
      expect((yield* events(running)).at(-1)).toEqual(["timed_out", "worker_revoked", w.workerId])

      // The revoked worker's late calls find nothing.
      expect((yield* op(w, running, "complete", { status: "succeeded" })).status).toBe(401)

      // The webhook fires as for any time-out.
      yield* eventually("the webhook", Effect.sync(() => rx.received("/revoked").length), (n) => n === 1)
      const body = JSON.parse(rx.received("/revoked")[0]!.raw.toString("utf8"))
      expect(body).toMatchObject({ runId: claimed, status: "timed_out", faultClass: "infra" })

      const runs = yield* call("GET", `/api/v1/environments/${env.environmentId}/runs?status=timed_out`, { cookie: env.user.cookie })
      expect(runs.body.items.map((r: any) => [r.id, r.faultClass]).sort()).toEqual([[claimed, "infra"], [running, "infra"]].sort())
    }), { timeout: 30_000 })
})
