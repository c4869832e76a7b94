import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { addMember, createTrigger, mintApiKey, registerWorker, setupEnvironment } from "../support/Fixtures.js"
import { call, layer } from "../support/TestApp.js"

const runFields = [
  "assignedAt", "attempt", "availableAt", "cancelRequestedAt", "claimedAt", "concurrencyKey", "costUsd", "createdAt", "durationMs",
  "endedAt", "environmentId", "errorMessage", "expiresAt", "faultClass", "id", "input", "lastHeartbeatAt", "priority", "replayOfRunId",
  "retryOfRunId", "shortMessage", "startedAt", "status", "tags", "triggerId", "waitPool", "waitReason", "workerId"
]

const runPath = (triggerId: string) => `/api/v1/triggers/${triggerId}/run`

withLayer(layer(), { excludeTestServices: true })("runs", (it) => {
  describe("POST /triggers/{id}/run", () => {
    it.effect("201 queued run with exactly the contract's fields; input defaults to the trigger's; audited", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const trigger = yield* createTrigger(env, { input: { branch: "main" }, maxRetries: 2 })
        const res = yield* call("POST", runPath(trigger.id), { cookie: env.user.cookie })
        expect(res.status).toBe(201)
        expect(Object.keys(res.body).sort()).toEqual(runFields)
        expect(res.body).toMatchObject({
          triggerId: trigger.id,
          environmentId: env.environmentId,
          status: "queued",
          attempt: 1,
          retryOfRunId: null,
          workerId: null,
          input: { branch: "main" },
          durationMs: null,
          costUsd: null,
          faultClass: null,
          endedAt: null
        })
        expect(new Date(res.body.createdAt).toISOString()).toBe(res.body.createdAt)
        const sql = yield* SqlClient.SqlClient
        const audit = yield* sql<{ action: string; actor_type: string }>`
          SELECT action, actor_type FROM audit_log WHERE target_id = ${res.body.id}`
        expect(audit).toEqual([{ action: "run.requested", actor_type: "user" }])
      }))

    it.effect("an explicit input (even null) replaces the trigger's", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const trigger = yield* createTrigger(env, { input: { branch: "main" } })
        const custom = yield* call("POST", runPath(trigger.id), { cookie: env.user.cookie, body: { input: [1, "two"] } })
        expect(custom.status).toBe(201)
        expect(custom.body.input).toEqual([1, "two"])
        const none = yield* call("POST", runPath(trigger.id), { cookie: env.user.cookie, body: { input: null } })
        expect(none.body.input).toBeNull()
        const empty = yield* call("POST", runPath(trigger.id), { cookie: env.user.cookie, body: {} })
        expect(empty.body.input).toEqual({ branch: "main" })
      }))

    it.effect("Idempotency-Key: a repeat answers the first run with 200, also when sent concurrently", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const trigger = yield* createTrigger(env)
        const key = yield* mintApiKey(env, "operator")
        const headers = { "idempotency-key": "deploy-42" }
        const first = yield* call("POST", runPath(trigger.id), { bearer: key, headers })
        const again = yield* call("POST", runPath(trigger.id), { bearer: key, headers, body: { input: "ignored" } })
        expect(first.status).toBe(201)
        expect(again.status).toBe(200)
        expect(again.body.id).toBe(first.body.id)
        const racing = yield* Effect.all(
          Array.from({ length: 5 }, () => call("POST", runPath(trigger.id), { bearer: key, headers: { "idempotency-key": "race" } })),
          { concurrency: "unbounded" }
        )
        expect(new Set(racing.map((r) => r.body.id)).size).toBe(1)
        expect(racing.filter((r) => r.status === 201)).toHaveLength(1)
        expect(racing.filter((r) => r.status === 200)).toHaveLength(4)
        const other = yield* call("POST", runPath(trigger.id), { bearer: key, headers: { "idempotency-key": "deploy-43" } })
        expect(other.status).toBe(201)
        expect(other.body.id).not.toBe(first.body.id)
      }))

    it.effect("400 for malformed JSON and an over-long Idempotency-Key", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const trigger = yield* createTrigger(env)
        const malformed = yield* call("POST", runPath(trigger.id), { cookie: env.user.cookie, rawBody: "{\"input\":" })
        expect(malformed.status).toBe(400)
        expect(malformed.body.error).toBeTypeOf("string")
        const notObject = yield* call("POST", runPath(trigger.id), { cookie: env.user.cookie, rawBody: "[1]" })
        expect(notObject.status).toBe(400)
        expect(notObject.body.details.formErrors.length).toBeGreaterThan(0)
        const longKey = yield* call("POST", runPath(trigger.id), {
          cookie: env.user.cookie,
          headers: { "idempotency-key": "k".repeat(256) }
        })
        expect(longKey.status).toBe(400)
        expect(longKey.body.details.fieldErrors["idempotency-key"]).toBeDefined()
        // The same through an operator key (whose insert folds in the trigger lookup).
        const key = yield* mintApiKey(env, "operator")
        expect((yield* call("POST", runPath(trigger.id), { bearer: key, rawBody: "{\"input\":" })).status).toBe(400)
        expect((yield* call("POST", runPath(trigger.id), { bearer: key, rawBody: "[1]" })).body.details.formErrors.length).toBeGreaterThan(0)
      }))

    it.effect("401 without credentials, 403 for a viewer or a viewer key, 404 for strangers, other environments' keys and deleted triggers", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const trigger = yield* createTrigger(env)
        expect((yield* call("POST", runPath(trigger.id), {})).status).toBe(401)
        const viewer = yield* addMember(env, "viewer")
        const asViewer = yield* call("POST", runPath(trigger.id), { cookie: viewer.cookie })
        expect(asViewer.status).toBe(403)
        expect(asViewer.body).toEqual({ error: "insufficient role" })
        const viewerKey = yield* mintApiKey(env, "viewer")
        expect((yield* call("POST", runPath(trigger.id), { bearer: viewerKey })).status).toBe(403)
        const operator = yield* addMember(env, "operator")
        expect((yield* call("POST", runPath(trigger.id), { cookie: operator.cookie })).status).toBe(201)

        const stranger = yield* setupEnvironment("other")
        const foreign = yield* call("POST", runPath(trigger.id), { cookie: stranger.user.cookie })
        expect(foreign.status).toBe(404)
        expect(foreign.body).toEqual({ error: "trigger not found" })
        const foreignKey = yield* mintApiKey(stranger, "admin")
        expect((yield* call("POST", runPath(trigger.id), { bearer: foreignKey })).status).toBe(404)
        // Not found comes before a bad body, as for users.
        expect((yield* call("POST", runPath(trigger.id), { bearer: foreignKey, rawBody: "{" })).status).toBe(404)
        expect((yield* call("POST", runPath("not-a-uuid"), { cookie: env.user.cookie })).status).toBe(404)

        const idle = yield* createTrigger(env, { name: "idle" })
        const deleted = yield* call("DELETE", `/api/v1/triggers/${idle.id}`, { cookie: env.user.cookie })
        expect(deleted.status).toBe(204)
        expect((yield* call("POST", runPath(idle.id), { cookie: env.user.cookie })).status).toBe(404)
        const operatorKey = yield* mintApiKey(env, "operator")
        expect((yield* call("POST", runPath(idle.id), { bearer: operatorKey })).body).toEqual({ error: "trigger not found" })
        expect((yield* call("GET", `/api/v1/triggers/${idle.id}/runs`, { cookie: env.user.cookie })).status).toBe(404)
        // Only the operator's request made a run.
        const runs = yield* call("GET", `/api/v1/triggers/${trigger.id}/runs`, { cookie: env.user.cookie })
        expect(runs.body.items).toHaveLength(1)
      }))

    it.effect("snapshots the trigger: a later PATCH does not change an existing run's retries", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const trigger = yield* createTrigger(env, { maxRetries: 3, timeoutSeconds: 120 })
        const run = yield* call("POST", runPath(trigger.id), { cookie: env.user.cookie })
        const patched = yield* call("PATCH", `/api/v1/triggers/${trigger.id}`, {
          cookie: env.user.cookie,
          body: { maxRetries: 0, timeoutSeconds: 60 }
        })
        expect(patched.status).toBe(200)
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ max_retries: number; timeout_seconds: number }>`
          SELECT max_retries, timeout_seconds FROM runs WHERE id = ${run.body.id}`
        expect(rows[0]).toEqual({ max_retries: 3, timeout_seconds: 120 })
      }))

    it.effect("a run is assigned at once to an online worker of the environment", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const worker = yield* registerWorker(env)
        const trigger = yield* createTrigger(env)
        const run = yield* call("POST", runPath(trigger.id), { cookie: env.user.cookie })
        expect(run.body.status).toBe("queued")
        const listed = yield* call("GET", `/api/v1/triggers/${trigger.id}/runs`, { cookie: env.user.cookie })
        expect(listed.body.items[0]).toMatchObject({ id: run.body.id, status: "assigned", workerId: worker.workerId })
        expect(listed.body.items[0].assignedAt).toBeTypeOf("string")
      }))

    it.effect("placed by the creating statement only when nothing older is queued: no run jumps the queue", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const trigger = yield* createTrigger(env)
        const key = yield* mintApiKey(env, "operator")
        const sql = yield* SqlClient.SqlClient
        // No worker yet: the first run stays queued.
        const first = yield* call("POST", runPath(trigger.id), { bearer: key })
        const worker = yield* registerWorker(env)
        // A worker is online now, but an older run is queued: the new run queues behind it.
        const second = yield* call("POST", runPath(trigger.id), { bearer: key })
        expect(second.status).toBe(201)
        expect(second.body).toMatchObject({ status: "queued", workerId: null, assignedAt: null })
        const rows = yield* sql<{ id: string; status: string; worker_id: string | null }>`
          SELECT id, status, worker_id FROM runs WHERE trigger_id = ${trigger.id} ORDER BY id`.pipe(Effect.orDie)
        // The request's assignment pass then hands both out, oldest first.
        expect(rows.map((r) => [r.id, r.status, r.worker_id])).toEqual([
          [first.body.id, "assigned", worker.workerId],
          [second.body.id, "assigned", worker.workerId]
        ])
        // With nothing queued, the next run is placed by its own statement, answered as requested.
        const third = yield* call("POST", runPath(trigger.id), { bearer: key })
        expect(third.body).toMatchObject({ status: "queued", workerId: null })
        const placed = yield* sql<{ status: string; worker_id: string; deadline_set: boolean }>`
          SELECT status, worker_id, deadline_at IS NOT NULL AS deadline_set FROM runs WHERE id = ${third.body.id}`.pipe(Effect.orDie)
        expect(placed[0]).toEqual({ status: "assigned", worker_id: worker.workerId, deadline_set: true })
        const audit = yield* sql<{ n: number }>`
          SELECT count(*)::int AS n FROM audit_log WHERE target_id = ${third.body.id} AND action = 'run.requested'`.pipe(Effect.orDie)
        expect(audit[0]!.n).toBe(1)
      }))
  })

  describe("listings", () => {
    it.effect("per trigger and per environment, newest first, with every filter and the cursor", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const a = yield* createTrigger(env, { name: "a" })
        const b = yield* createTrigger(env, { name: "b" })
        const ids: Array<string> = []
        for (const t of [a, b, a, b, a]) {
          ids.push((yield* call("POST", runPath(t.id), { cookie: env.user.cookie })).body.id)
        }
        const all = yield* call("GET", `/api/v1/environments/${env.environmentId}/runs`, { cookie: env.user.cookie })
        expect(all.status).toBe(200)
        expect(all.body.items.map((r: any) => r.id)).toEqual([...ids].reverse())
        expect(all.body.nextCursor).toBeNull()

        const ofA = yield* call("GET", `/api/v1/triggers/${a.id}/runs?limit=2`, { cookie: env.user.cookie })
        expect(ofA.body.items.map((r: any) => r.id)).toEqual([ids[4], ids[2]])
        const next = yield* call("GET", `/api/v1/triggers/${a.id}/runs?limit=2&cursor=${ofA.body.nextCursor}`, {
          cookie: env.user.cookie
        })
        expect(next.body.items.map((r: any) => r.id)).toEqual([ids[0]])
        expect(next.body.nextCursor).toBeNull()

        const queued = yield* call("GET", `/api/v1/environments/${env.environmentId}/runs?status=queued`, { cookie: env.user.cookie })
        expect(queued.body.items).toHaveLength(5)
        const running = yield* call("GET", `/api/v1/environments/${env.environmentId}/runs?status=running`, { cookie: env.user.cookie })
        expect(running.body.items).toHaveLength(0)

        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE runs SET created_at = '2020-01-01T00:00:00Z' WHERE id = ${ids[0]!}`
        const from = yield* call("GET", `/api/v1/environments/${env.environmentId}/runs?from=2021-01-01T00:00:00Z`, { cookie: env.user.cookie })
        expect(from.body.items).toHaveLength(4)
        const to = yield* call("GET", `/api/v1/environments/${env.environmentId}/runs?to=2020-01-01T00:00:00.000Z`, { cookie: env.user.cookie })
        expect(to.body.items.map((r: any) => r.id)).toEqual([ids[0]])

        // Terminal first, so the scheduler does not hand the runs to the new worker meanwhile.
        yield* sql`UPDATE runs SET status = 'failed' WHERE environment_id = ${env.environmentId}`
        const worker = yield* registerWorker(env)
        yield* sql`UPDATE runs SET worker_id = ${worker.workerId} WHERE id = ${ids[1]!}`
        const byWorker = yield* call("GET", `/api/v1/environments/${env.environmentId}/runs?workerId=${worker.workerId}`, { cookie: env.user.cookie })
        expect(byWorker.body.items.map((r: any) => r.id)).toEqual([ids[1]])
      }))

    it.effect("400 for a bad status, timestamp, workerId, limit or cursor; 404 for strangers; viewers may list", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const trigger = yield* createTrigger(env)
        const base = `/api/v1/environments/${env.environmentId}/runs`
        const bad = yield* call("GET", `${base}?status=done&from=yesterday&workerId=7&limit=0`, { cookie: env.user.cookie })
        expect(bad.status).toBe(400)
        expect(Object.keys(bad.body.details.fieldErrors).sort()).toEqual(["from", "limit", "status", "workerId"])
        const cursor = yield* call("GET", `/api/v1/triggers/${trigger.id}/runs?cursor=zzz`, { cookie: env.user.cookie })
        expect(cursor.status).toBe(400)
        expect(cursor.body.details.fieldErrors.cursor).toEqual(["invalid cursor"])
        const stranger = yield* setupEnvironment("other")
        expect((yield* call("GET", base, { cookie: stranger.user.cookie })).status).toBe(404)
        expect((yield* call("GET", `/api/v1/environments/nope/runs`, { cookie: env.user.cookie })).status).toBe(404)
        const viewer = yield* addMember(env, "viewer")
        expect((yield* call("GET", base, { cookie: viewer.cookie })).status).toBe(200)
        const viewerKey = yield* mintApiKey(env, "viewer")
        expect((yield* call("GET", `/api/v1/triggers/${trigger.id}/runs`, { bearer: viewerKey })).status).toBe(200)
      }))
  })
})
