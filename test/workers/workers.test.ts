import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { sha256 } from "../../src/Crypto/Tokens.js"
import {
  addEnvironment,
  addMember,
  mintApiKey,
  mintRegistrationToken,
  registerWorker,
  setupEnvironment,
  type TestEnv
} from "../support/Fixtures.js"
import { call, layer, registerUser } from "../support/TestApp.js"

const workerFields = ["createdAt", "environmentId", "id", "label", "lastSeenAt", "status", "workspaceId"]

const envWorkers = (env: TestEnv, qs = "") => `/api/v1/environments/${env.environmentId}/workers${qs}`
const wsWorkers = (env: TestEnv, qs = "") => `/api/v1/workspaces/${env.workspaceId}/workers${qs}`

/** Makes the worker look silent for an hour, whatever the offline threshold. */
const makeStale = (workerId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`UPDATE workers SET last_seen_at = now() - interval '1 hour' WHERE id = ${workerId}`).pipe(Effect.orDie)

const auditOf = (targetId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ action: string; actor_type: string; actor_id: string | null; metadata: any }>`
      SELECT action, actor_type, actor_id, metadata FROM audit_log WHERE target_id = ${targetId} ORDER BY id`).pipe(
    Effect.orDie
  )

withLayer(layer(), { excludeTestServices: true })("workers", (it) => {
  describe("register", () => {
    it.effect("201 {worker, token}: the wrk_ token is consumed, the wkt_ token stored hashed and accepted", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const registrationToken = yield* mintRegistrationToken(env)
        const res = yield* call("POST", "/api/v1/workers/register", { body: { registrationToken, label: "  builder-1 " } })
        expect(res.status).toBe(201)
        expect(Object.keys(res.body).sort()).toEqual(["token", "worker"])
        expect(Object.keys(res.body.worker).sort()).toEqual(workerFields)
        expect(res.body.worker).toMatchObject({
          environmentId: env.environmentId,
          workspaceId: env.workspaceId,
          label: "builder-1",
          status: "online"
        })
        expect(res.body.token).toMatch(/^wkt_[A-Za-z0-9_-]{43}$/)
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ token_hash: string }>`SELECT token_hash FROM workers WHERE id = ${res.body.worker.id}`
        expect(rows[0]!.token_hash).toBe(sha256(res.body.token))
        const keys = yield* sql<{ consumed_at: Date | null }>`SELECT consumed_at FROM api_keys WHERE token_hash = ${sha256(registrationToken)}`
        expect(keys[0]!.consumed_at).not.toBeNull()

        const again = yield* call("POST", "/api/v1/workers/register", { body: { registrationToken } })
        expect(again.status).toBe(401)
        expect(again.body.error).toBeTypeOf("string")

        const audit = yield* auditOf(res.body.worker.id)
        expect(audit.map((a) => [a.action, a.actor_type, a.actor_id])).toEqual([["worker.registered", "worker", res.body.worker.id]])
        expect(JSON.stringify(audit)).not.toContain(res.body.token)
        expect(JSON.stringify(audit)).not.toContain(registrationToken)
      }))

    it.effect("a default label; 401 for unknown tokens, pwk_ keys and other prefixes; 400 for a missing token", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const worker = yield* registerWorker(env)
        expect(worker.worker.label).toMatch(/^worker-/)
        const pwk = yield* mintApiKey(env, "admin")
        for (const registrationToken of ["wrk_unknown", pwk, worker.token, ""]) {
          const res = yield* call("POST", "/api/v1/workers/register", { body: { registrationToken } })
          expect(res.status, registrationToken).toBe(401)
          expect(res.body.error).toBeTypeOf("string")
        }
        const missing = yield* call("POST", "/api/v1/workers/register", { body: { label: "x" } })
        expect(missing.status).toBe(400)
        expect(Object.keys(missing.body.details.fieldErrors)).toEqual(["registrationToken"])
        const badLabel = yield* call("POST", "/api/v1/workers/register", { body: { registrationToken: "wrk_x", label: "" } })
        expect(badLabel.status).toBe(400)
        expect(Object.keys(badLabel.body.details.fieldErrors)).toEqual(["label"])
      }))

    it.effect("two concurrent registrations with one token: exactly one wins", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        for (let round = 0; round < 3; round++) {
          const registrationToken = yield* mintRegistrationToken(env)
          const results = yield* Effect.all(
            Array.from({ length: 4 }, (_, i) => call("POST", "/api/v1/workers/register", { body: { registrationToken, label: `w${i}` } })),
            { concurrency: "unbounded" }
          )
          expect(results.map((r) => r.status).sort()).toEqual([201, 401, 401, 401])
        }
        const sql = yield* SqlClient.SqlClient
        const count = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM workers WHERE environment_id = ${env.environmentId}`
        expect(count[0]!.n).toBe(3)
      }))
  })

  describe("worker token", () => {
    it.effect("trusted for a second once verified: contact is still recorded, a deleted worker is refused after that second", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const w = yield* registerWorker(env, "cached")
        const bearer = { authorization: `Bearer ${w.token}` }
        const sql = yield* SqlClient.SqlClient
        const lastSeen = sql<{ stale: boolean }>`
          SELECT last_seen_at < now() - interval '1 minute' AS stale FROM workers WHERE id = ${w.workerId}`.pipe(Effect.orDie)
        expect((yield* call("GET", "/api/v1/workers/me", { headers: bearer })).status).toBe(200)
        // Silent for an hour, as far as the database knows: the next verification records contact again.
        yield* makeStale(w.workerId)
        yield* Effect.sleep("1100 millis")
        expect((yield* call("GET", "/api/v1/workers/me", { headers: bearer })).status).toBe(200)
        expect((yield* lastSeen)[0]!.stale).toBe(false)

        // Within the second the token is trusted as verified: a poll passes (and finds nothing). `me` reads the
        // worker itself, which is gone, and answers as the token will be answered: 401.
        yield* sql`DELETE FROM workers WHERE id = ${w.workerId}`.pipe(Effect.orDie)
        const poll = `/api/v1/workers/${w.workerId}/poll`
        const within = yield* call("GET", poll, { headers: bearer })
        expect(within.status).toBe(200)
        expect(within.body.runs).toEqual([])
        const me = yield* call("GET", "/api/v1/workers/me", { headers: bearer })
        expect(me.status).toBe(401)
        expect(me.body).toEqual({ error: "invalid worker token" })
        yield* Effect.sleep("1100 millis")
        const after = yield* call("GET", poll, { headers: bearer })
        expect(after.status).toBe(401)
        expect(after.body).toEqual({ error: "invalid worker token" })
      }))
  })

  describe("environment listing", () => {
    it.effect("viewer+, newest first, status filter, pages; 400 for bad status; 404 for outsiders", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const a = yield* registerWorker(env, "a")
        const b = yield* registerWorker(env, "b")
        const c = yield* registerWorker(env, "c")
        yield* makeStale(b.workerId)
        const viewer = yield* addMember(env, "viewer")
        const all = yield* call("GET", envWorkers(env), { cookie: viewer.cookie })
        expect(all.status).toBe(200)
        expect(all.body.items.map((w: any) => [w.id, w.status])).toEqual([
          [c.workerId, "online"],
          [b.workerId, "offline"],
          [a.workerId, "online"]
        ])
        expect(all.body.nextCursor).toBeNull()
        const online = yield* call("GET", envWorkers(env, "?status=online"), { cookie: viewer.cookie })
        expect(online.body.items.map((w: any) => w.id)).toEqual([c.workerId, a.workerId])
        const offline = yield* call("GET", envWorkers(env, "?status=offline"), { cookie: viewer.cookie })
        expect(offline.body.items.map((w: any) => w.id)).toEqual([b.workerId])
        const first = yield* call("GET", envWorkers(env, "?limit=2"), { cookie: viewer.cookie })
        expect(first.body.items).toHaveLength(2)
        const rest = yield* call("GET", envWorkers(env, `?limit=2&cursor=${first.body.nextCursor}`), { cookie: viewer.cookie })
        expect(rest.body.items.map((w: any) => w.id)).toEqual([a.workerId])
        expect(rest.body.nextCursor).toBeNull()

        const bad = yield* call("GET", envWorkers(env, "?status=busy"), { cookie: viewer.cookie })
        expect(bad.status).toBe(400)
        expect(Object.keys(bad.body.details.fieldErrors)).toEqual(["status"])
        expect((yield* call("GET", envWorkers(env, "?cursor=zzz"), { cookie: viewer.cookie })).status).toBe(400)
        const stranger = yield* registerUser("stranger")
        expect((yield* call("GET", envWorkers(env), { cookie: stranger.cookie })).status).toBe(404)
        expect((yield* call("GET", envWorkers(env))).status).toBe(401)
      }))
  })

  describe("workspace listing", () => {
    it.effect("lists the workers of environments where the caller is a member; pwk_ keys see their own environment", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const env2 = yield* addEnvironment(env)
        const w1 = yield* registerWorker(env, "one")
        const w2 = yield* registerWorker(env2, "two")
        yield* makeStale(w1.workerId)
        const owner = yield* call("GET", wsWorkers(env), { cookie: env.user.cookie })
        expect(owner.status).toBe(200)
        expect(owner.body.items.map((w: any) => w.id)).toEqual([w2.workerId, w1.workerId])
        expect(owner.body.nextCursor).toBeNull()
        const offline = yield* call("GET", wsWorkers(env, "?status=offline"), { cookie: env.user.cookie })
        expect(offline.body.items.map((w: any) => w.id)).toEqual([w1.workerId])
        const paged = yield* call("GET", wsWorkers(env, "?limit=1"), { cookie: env.user.cookie })
        expect(paged.body.items.map((w: any) => w.id)).toEqual([w2.workerId])
        expect(paged.body.nextCursor).toBeTypeOf("string")

        const viewer = yield* addMember(env, "viewer")
        const scoped = yield* call("GET", wsWorkers(env), { cookie: viewer.cookie })
        expect(scoped.body.items.map((w: any) => w.id)).toEqual([w1.workerId])

        const key = yield* mintApiKey(env2, "viewer")
        const byKey = yield* call("GET", wsWorkers(env), { bearer: key })
        expect(byKey.status).toBe(200)
        expect(byKey.body.items.map((w: any) => w.id)).toEqual([w2.workerId])

        const other = yield* setupEnvironment()
        expect((yield* call("GET", wsWorkers(other), { bearer: key })).status).toBe(404)
        const stranger = yield* registerUser("stranger")
        const hidden = yield* call("GET", wsWorkers(env), { cookie: stranger.cookie })
        expect(hidden.status).toBe(404)
        expect(hidden.body.error).toBeTypeOf("string")
        expect((yield* call("GET", "/api/v1/workspaces/nope/workers", { cookie: env.user.cookie })).status).toBe(404)
        expect((yield* call("GET", wsWorkers(env, "?status=idle"), { cookie: env.user.cookie })).status).toBe(400)
      }))
  })

  describe("label", () => {
    it.effect("admin+ renames; operator 403; outsider and other workspace 404; audited", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const w = yield* registerWorker(env, "old")
        const path = `/api/v1/workspaces/${env.workspaceId}/workers/${w.workerId}`
        const admin = yield* addMember(env, "admin")
        const res = yield* call("PATCH", path, { cookie: admin.cookie, body: { label: " new name " } })
        expect(res.status).toBe(200)
        expect(Object.keys(res.body).sort()).toEqual(workerFields)
        expect(res.body).toMatchObject({ id: w.workerId, label: "new name" })
        const audit = yield* auditOf(w.workerId)
        expect(audit.map((a) => a.action)).toEqual(["worker.registered", "worker.label_changed"])
        expect(audit[1]!.metadata).toEqual({ previousLabel: "old", label: "new name" })

        const operator = yield* addMember(env, "operator")
        const denied = yield* call("PATCH", path, { cookie: operator.cookie, body: { label: "x" } })
        expect(denied.status).toBe(403)
        const stranger = yield* registerUser("stranger")
        expect((yield* call("PATCH", path, { cookie: stranger.cookie, body: { label: "x" } })).status).toBe(404)
        const other = yield* setupEnvironment()
        const elsewhere = yield* call("PATCH", `/api/v1/workspaces/${other.workspaceId}/workers/${w.workerId}`, {
          cookie: other.user.cookie,
          body: { label: "x" }
        })
        expect(elsewhere.status).toBe(404)
        const viaOwnOtherWorkspace = yield* call("PATCH", `/api/v1/workspaces/${other.workspaceId}/workers/${w.workerId}`, {
          cookie: env.user.cookie,
          body: { label: "x" }
        })
        expect(viaOwnOtherWorkspace.status).toBe(404)
        const adminKey = yield* mintApiKey(env, "admin")
        expect((yield* call("PATCH", path, { bearer: adminKey, body: { label: "by key" } })).status).toBe(200)
        const invalid = yield* call("PATCH", path, { cookie: admin.cookie, body: { label: "x".repeat(201) } })
        expect(invalid.status).toBe(400)
        expect(Object.keys(invalid.body.details.fieldErrors)).toEqual(["label"])
        const listed = yield* call("GET", envWorkers(env), { cookie: env.user.cookie })
        expect(listed.body.items[0].label).toBe("by key")
      }))
  })
})

withLayer(layer({ workerOfflineAfterSeconds: 1 }), { excludeTestServices: true })("workers offline threshold", (it) => {
  // Test services are excluded, so this sleep is real time: the point is the database clock moving.
  it.effect("WORKER_OFFLINE_AFTER_SECONDS decides when a silent worker turns offline", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const w = yield* registerWorker(env)
      expect(w.worker.status).toBe("online")
      yield* Effect.sleep("1200 millis")
      const res = yield* call("GET", envWorkers(env, "?status=offline"), { cookie: env.user.cookie })
      expect(res.body.items.map((x: any) => x.id)).toEqual([w.workerId])
    }))
})
