import * as SqlClient from "@effect/sql/SqlClient"
import { expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { addMember, createTrigger, mintApiKey, registerWorker, setupEnvironment, type TestEnv } from "../support/Fixtures.js"
import { call, registerUser, layer } from "../support/TestApp.js"

type Worker = { readonly workerId: string; readonly token: string }

const workerPath = (env: TestEnv, worker: Worker) => `/api/v1/workspaces/${env.workspaceId}/workers/${worker.workerId}`

const drain = (env: TestEnv, worker: Worker, draining: boolean) =>
  Effect.gen(function*() {
    const res = yield* call("PATCH", workerPath(env, worker), { cookie: env.user.cookie, body: { draining } })
    expect(res.status).toBe(200)
    return res.body
  })

const requestRun = (env: TestEnv, triggerId: string) =>
  Effect.gen(function*() {
    const res = yield* call("POST", `/api/v1/triggers/${triggerId}/run`, { cookie: env.user.cookie })
    expect(res.status).toBe(201)
    return res.body.id as string
  })

const poll = (worker: Worker, query = "") => call("GET", `/api/v1/workers/${worker.workerId}/poll${query}`, { bearer: worker.token })
const op = (worker: Worker, runId: string, step: "claim" | "start" | "heartbeat" | "complete", body?: unknown) =>
  call("POST", `/api/v1/workers/${worker.workerId}/runs/${runId}/${step}`, { bearer: worker.token, body })

const runRow = (runId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ status: string; worker_id: string | null }>`SELECT status, worker_id FROM runs WHERE id = ${runId}`).pipe(
    Effect.map((rows) => rows[0]!),
    Effect.orDie
  )

const auditOf = (targetId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ action: string; metadata: any }>`SELECT action, metadata FROM audit_log WHERE target_id = ${targetId} ORDER BY id`).pipe(
    Effect.orDie
  )

withLayer(layer(), { excludeTestServices: true })("draining workers", (it) => {
  it.effect("PATCH {draining}: admin+ only, status draining, audited once per change, listed by ?status=draining; 400 for an empty or bad body", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const w = yield* registerWorker(env, "builder")
      const other = yield* registerWorker(env, "other")
      const admin = yield* addMember(env, "admin")
      const res = yield* call("PATCH", workerPath(env, w), { cookie: admin.cookie, body: { draining: true } })
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ id: w.workerId, label: "builder", status: "draining" })
      // The same value again changes nothing and records nothing.
      expect((yield* drain(env, w, true)).status).toBe("draining")
      const listed = yield* call("GET", `/api/v1/environments/${env.environmentId}/workers?status=draining`, { cookie: env.user.cookie })
      expect(listed.body.items.map((x: any) => x.id)).toEqual([w.workerId])
      const online = yield* call("GET", `/api/v1/environments/${env.environmentId}/workers?status=online`, { cookie: env.user.cookie })
      expect(online.body.items.map((x: any) => x.id)).toEqual([other.workerId])
      const ws = yield* call("GET", `/api/v1/workspaces/${env.workspaceId}/workers?status=draining`, { cookie: env.user.cookie })
      expect(ws.body.items.map((x: any) => [x.id, x.status])).toEqual([[w.workerId, "draining"]])

      // Label and draining in one call: both recorded.
      const both = yield* call("PATCH", workerPath(env, w), { cookie: admin.cookie, body: { label: "renamed", draining: false } })
      expect(both.status).toBe(200)
      expect(both.body).toMatchObject({ label: "renamed", status: "online" })
      const audit = yield* auditOf(w.workerId)
      expect(audit.map((a) => [a.action, a.metadata])).toEqual([
        ["worker.registered", expect.anything()],
        ["worker.drain_changed", { draining: true }],
        ["worker.label_changed", { previousLabel: "builder", label: "renamed" }],
        ["worker.drain_changed", { draining: false }]
      ])

      const operator = yield* addMember(env, "operator")
      expect((yield* call("PATCH", workerPath(env, w), { cookie: operator.cookie, body: { draining: true } })).status).toBe(403)
      const viewer = yield* addMember(env, "viewer")
      expect((yield* call("PATCH", workerPath(env, w), { cookie: viewer.cookie, body: { draining: true } })).status).toBe(403)
      const operatorKey = yield* mintApiKey(env, "operator")
      expect((yield* call("PATCH", workerPath(env, w), { bearer: operatorKey, body: { draining: true } })).status).toBe(403)
      const stranger = yield* registerUser("stranger")
      expect((yield* call("PATCH", workerPath(env, w), { cookie: stranger.cookie, body: { draining: true } })).status).toBe(404)
      const empty = yield* call("PATCH", workerPath(env, w), { cookie: admin.cookie, body: {} })
      expect(empty.status).toBe(400)
      const bad = yield* call("PATCH", workerPath(env, w), { cookie: admin.cookie, body: { draining: "yes" } })
      expect(bad.status).toBe(400)
      expect(Object.keys(bad.body.details.fieldErrors)).toEqual(["draining"])
    }))

  it.effect("a draining worker is assigned nothing new (not by a run request, not by a poll's pass, not through a waiting poll); undrained, it is again", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const w = yield* registerWorker(env)
      const trigger = yield* createTrigger(env)
      yield* drain(env, w, true)

      // A claim poll waits on this instance while a run is requested: it is not handed the run.
      const waiting = yield* Effect.fork(poll(w, "?wait=2&claim=true"))
      yield* Effect.sleep("300 millis")
      const first = yield* requestRun(env, trigger.id)
      const handed = yield* Fiber.join(waiting)
      expect(handed.status).toBe(200)
      expect(handed.body.runs).toEqual([])
      expect(yield* runRow(first)).toEqual({ status: "queued", worker_id: null })
      // A poll runs an assignment pass for its environment: still nothing for a draining worker.
      expect((yield* poll(w)).body.runs).toEqual([])
      expect((yield* poll(w, "?claim=true")).body.runs).toEqual([])
      // A trigger pinned to it waits too.
      const pinned = yield* createTrigger(env, { name: "pinned", workerId: w.workerId })
      const second = yield* requestRun(env, pinned.id)
      expect((yield* poll(w)).body.runs).toEqual([])
      expect(yield* runRow(second)).toEqual({ status: "queued", worker_id: null })

      yield* drain(env, w, false)
      const polled = yield* poll(w, "?claim=true&max=10")
      expect(polled.body.runs.map((r: any) => r.id).sort()).toEqual([first, second].sort())
      // And a waiting poll is handed new runs again.
      const again = yield* Effect.fork(poll(w, "?wait=10&claim=true"))
      yield* Effect.sleep("300 millis")
      const third = yield* requestRun(env, trigger.id)
      const res = yield* Fiber.join(again)
      expect(res.body.runs.map((r: any) => [r.id, r.status])).toEqual([[third, "claimed"]])
    }))

  it.effect("new runs go to the other workers, even when the draining one has fewer; it keeps and finishes the runs it holds", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const w = yield* registerWorker(env, "draining")
      const trigger = yield* createTrigger(env)
      const held = yield* requestRun(env, trigger.id)
      const assigned = yield* requestRun(env, trigger.id)
      expect((yield* op(w, held, "claim")).status).toBe(200)
      const busy = yield* registerWorker(env, "busy")
      const busyRun = yield* requestRun(env, trigger.id)
      expect((yield* runRow(busyRun)).worker_id).toBe(busy.workerId)
      yield* drain(env, w, true)

      const fresh = [yield* requestRun(env, trigger.id), yield* requestRun(env, trigger.id), yield* requestRun(env, trigger.id)]
      for (const runId of fresh) expect((yield* runRow(runId)).worker_id).toBe(busy.workerId)

      // What it held stays its own: the assigned run is still handed to its poll, the claimed one runs to the end.
      expect(yield* runRow(assigned)).toEqual({ status: "assigned", worker_id: w.workerId })
      expect((yield* poll(w)).body.runs.map((r: any) => r.id)).toEqual([assigned])
      expect((yield* op(w, assigned, "claim")).status).toBe(200)
      for (const runId of [held, assigned]) {
        expect((yield* op(w, runId, "start")).status).toBe(200)
        expect((yield* op(w, runId, "heartbeat")).status).toBe(200)
        expect((yield* op(w, runId, "complete", { status: "succeeded" })).status).toBe(200)
      }
      expect((yield* poll(w)).body.runs).toEqual([])

      // The timeline shows the drain moved nothing: the held runs went their whole way with the draining
      // worker (no release), and each new run was assigned to the other worker only.
      const events = (runId: string) =>
        Effect.map(call("GET", `/api/v1/runs/${runId}/events`, { cookie: env.user.cookie }), (res) =>
          res.body.items.map((e: any) => [e.status, e.reason, e.workerId]))
      for (const runId of [held, assigned]) {
        expect(yield* events(runId)).toEqual([
          ["queued", "requested", null],
          ["assigned", "assigned", w.workerId],
          ["claimed", "claimed", w.workerId],
          ["running", "started", w.workerId],
          ["succeeded", "completed", w.workerId]
        ])
      }
      for (const runId of fresh) {
        expect(yield* events(runId)).toEqual([["queued", "requested", null], ["assigned", "assigned", busy.workerId]])
      }
    }))
})
