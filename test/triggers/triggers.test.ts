import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { sha256 } from "../../src/Crypto/Tokens.js"
import {
  addEnvironment,
  addMember,
  createTrigger,
  insertRun,
  mintApiKey,
  registerWorker,
  setupEnvironment,
  type TestEnv
} from "../support/Fixtures.js"
import { call, layer, registerUser } from "../support/TestApp.js"

// A public IP literal: passes the SSRF guard without a DNS lookup (nothing is ever sent to it here).
const publicHook = "https://8.8.8.8/hooks/pipeline"
const secret = "s3cret-webhook-key-0123456789"

const readFields = [
  "command", "concurrency", "createdAt", "defaultTags", "description", "environmentId", "hasWebhookSecret", "heartbeatTimeoutSeconds", "id", "input", "inputSchema",
  "maxRetries", "name", "nextRunAt", "retry", "schedule", "timeoutSeconds", "ttlSeconds", "updatedAt", "webhookUrl", "workerId"
]

const triggersPath = (env: TestEnv) => `/api/v1/environments/${env.environmentId}/triggers`

const auditOf = (targetId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return yield* sql<{ action: string; actor_type: string; metadata: any }>`
      SELECT action, actor_type, metadata FROM audit_log WHERE target_id = ${targetId} ORDER BY id`
  }).pipe(Effect.orDie)

const secretColumn = (id: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ webhook_secret_enc: string | null; mcp_token_hash: string | null }>`
      SELECT webhook_secret_enc, mcp_token_hash FROM triggers WHERE id = ${id}`
    return rows[0]!
  }).pipe(Effect.orDie)

withLayer(layer(), { excludeTestServices: true })("triggers", (it) => {
  describe("create and read", () => {
    it.effect("201 with the contract's defaults; GET answers the same object", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const res = yield* call("POST", triggersPath(env), { cookie: env.user.cookie, body: { name: "  build  " } })
        expect(res.status).toBe(201)
        expect(Object.keys(res.body).sort()).toEqual(readFields)
        expect(res.body).toMatchObject({
          environmentId: env.environmentId,
          name: "build",
          description: null,
          workerId: null,
          command: null,
          input: null,
          inputSchema: null,
          timeoutSeconds: 3600,
          heartbeatTimeoutSeconds: 30,
          maxRetries: 0,
          ttlSeconds: null,
          retry: { initialDelaySeconds: 0, factor: 2, maxDelaySeconds: 3600, jitter: 0 },
          webhookUrl: null,
          hasWebhookSecret: false
        })
        const got = yield* call("GET", `/api/v1/triggers/${res.body.id}`, { cookie: env.user.cookie })
        expect(got.status).toBe(200)
        expect(got.body).toEqual(res.body)
        const audit = yield* auditOf(res.body.id)
        expect(audit.map((a) => a.action)).toEqual(["trigger.created"])
        expect(audit[0]!.actor_type).toBe("user")
      }))

    it.effect("stores the webhook secret encrypted and never returns it", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const worker = yield* registerWorker(env)
        const res = yield* call("POST", triggersPath(env), {
          cookie: env.user.cookie,
          body: {
            name: "deploy",
            description: "ships it",
            workerId: worker.workerId,
            input: { branch: "main", flags: [1, 2] },
            timeoutSeconds: 86400,
            heartbeatTimeoutSeconds: 5,
            maxRetries: 10,
            webhookUrl: publicHook,
            webhookSecret: secret
          }
        })
        expect(res.status).toBe(201)
        expect(res.body).toMatchObject({
          description: "ships it",
          workerId: worker.workerId,
          input: { branch: "main", flags: [1, 2] },
          timeoutSeconds: 86400,
          heartbeatTimeoutSeconds: 5,
          maxRetries: 10,
          webhookUrl: publicHook,
          hasWebhookSecret: true
        })
        expect(JSON.stringify(res.body)).not.toContain(secret)
        const got = yield* call("GET", `/api/v1/triggers/${res.body.id}`, { cookie: env.user.cookie })
        expect(JSON.stringify(got.body)).not.toContain(secret)
        const list = yield* call("GET", triggersPath(env), { cookie: env.user.cookie })
        expect(JSON.stringify(list.body)).not.toContain(secret)
        const column = yield* secretColumn(res.body.id)
        expect(column.webhook_secret_enc).toMatch(/^v1\./)
        expect(column.webhook_secret_enc).not.toContain(secret)
        const audit = yield* auditOf(res.body.id)
        expect(JSON.stringify(audit)).not.toContain(secret)
      }))

    it.effect("400 names every invalid field", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const res = yield* call("POST", triggersPath(env), {
          cookie: env.user.cookie,
          body: {
            name: "",
            timeoutSeconds: 0,
            heartbeatTimeoutSeconds: 4,
            maxRetries: 11,
            webhookUrl: "ftp://example.com/x",
            webhookSecret: "too-short",
            workerId: "not-a-uuid"
          }
        })
        expect(res.status).toBe(400)
        expect(res.body.error).toBeTypeOf("string")
        expect(Object.keys(res.body.details.fieldErrors).sort()).toEqual([
          "heartbeatTimeoutSeconds", "maxRetries", "name", "timeoutSeconds", "webhookSecret", "webhookUrl", "workerId"
        ])
        const upper = yield* call("POST", triggersPath(env), {
          cookie: env.user.cookie,
          body: { name: "x".repeat(201), timeoutSeconds: 86401, heartbeatTimeoutSeconds: 3601, maxRetries: 1.5 }
        })
        expect(upper.status).toBe(400)
        expect(Object.keys(upper.body.details.fieldErrors).sort()).toEqual([
          "heartbeatTimeoutSeconds", "maxRetries", "name", "timeoutSeconds"
        ])
        const missing = yield* call("POST", triggersPath(env), { cookie: env.user.cookie, body: {} })
        expect(missing.status).toBe(400)
        expect(Object.keys(missing.body.details.fieldErrors)).toEqual(["name"])
        const nul = yield* call("POST", triggersPath(env), { cookie: env.user.cookie, body: { name: "a\u0000b", input: { k: "\u0000" } } })
        expect(nul.status).toBe(400)
        expect(Object.keys(nul.body.details.fieldErrors).sort()).toEqual(["input", "name"])
      }))

    it.effect("workerId must be a worker of the same environment", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const other = yield* addEnvironment(env)
        const foreign = yield* registerWorker(other)
        const res = yield* call("POST", triggersPath(env), { cookie: env.user.cookie, body: { name: "t", workerId: foreign.workerId } })
        expect(res.status).toBe(400)
        expect(Object.keys(res.body.details.fieldErrors)).toEqual(["workerId"])
        const unknown = yield* call("POST", triggersPath(env), {
          cookie: env.user.cookie,
          body: { name: "t", workerId: "01900000-0000-7000-8000-000000000000" }
        })
        expect(unknown.status).toBe(400)
      }))

    it.effect("webhook URLs on loopback or private networks are refused", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        for (const url of ["http://127.0.0.1:8080/hook", "http://10.1.2.3/hook", "http://localhost/hook", "http://169.254.169.254/"]) {
          const res = yield* call("POST", triggersPath(env), { cookie: env.user.cookie, body: { name: "t", webhookUrl: url } })
          expect(res.status, url).toBe(400)
          expect(Object.keys(res.body.details.fieldErrors)).toEqual(["webhookUrl"])
        }
        const trigger = yield* createTrigger(env)
        const patch = yield* call("PATCH", `/api/v1/triggers/${trigger.id}`, {
          cookie: env.user.cookie,
          body: { webhookUrl: "http://192.168.1.1/x" }
        })
        expect(patch.status).toBe(400)
        expect(Object.keys(patch.body.details.fieldErrors)).toEqual(["webhookUrl"])
      }))
  })

  describe("access", () => {
    it.effect("viewer reads, admin writes; non-members 404; no credentials 401", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const trigger = yield* createTrigger(env)
        const viewer = yield* addMember(env, "viewer")
        const operator = yield* addMember(env, "operator")
        const admin = yield* addMember(env, "admin")
        const stranger = yield* registerUser("stranger")
        const one = `/api/v1/triggers/${trigger.id}`

        expect((yield* call("GET", one, { cookie: viewer.cookie })).status).toBe(200)
        expect((yield* call("GET", triggersPath(env), { cookie: viewer.cookie })).status).toBe(200)
        const denied = yield* call("POST", triggersPath(env), { cookie: operator.cookie, body: { name: "x" } })
        expect(denied.status).toBe(403)
        expect(denied.body.error).toBeTypeOf("string")
        expect((yield* call("PATCH", one, { cookie: operator.cookie, body: { name: "y" } })).status).toBe(403)
        expect((yield* call("DELETE", one, { cookie: viewer.cookie })).status).toBe(403)
        expect((yield* call("POST", `${one}/rotate-mcp-token`, { cookie: operator.cookie })).status).toBe(403)
        expect((yield* call("POST", triggersPath(env), { cookie: admin.cookie, body: { name: "x" } })).status).toBe(201)
        expect((yield* call("PATCH", one, { cookie: admin.cookie, body: { name: "y" } })).status).toBe(200)

        for (const [method, path] of [["GET", one], ["PATCH", one], ["DELETE", one], ["POST", `${one}/rotate-mcp-token`], ["GET", triggersPath(env)], ["POST", triggersPath(env)]] as const) {
          const res = yield* call(method, path, { cookie: stranger.cookie, body: method === "GET" || method === "DELETE" ? undefined : { name: "z" } })
          expect(res.status, `${method} ${path}`).toBe(404)
          expect(res.body.error).toBeTypeOf("string")
        }
        expect((yield* call("GET", one)).status).toBe(401)
        expect((yield* call("GET", "/api/v1/triggers/not-a-uuid", { cookie: env.user.cookie })).status).toBe(404)
        expect((yield* call("GET", "/api/v1/environments/not-a-uuid/triggers", { cookie: env.user.cookie })).status).toBe(404)
      }))

    it.effect("pwk_ keys act with their role in their environment only", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const other = yield* addEnvironment(env)
        const adminKey = yield* mintApiKey(env, "admin")
        const operatorKey = yield* mintApiKey(env, "operator")
        const created = yield* call("POST", triggersPath(env), { bearer: adminKey, body: { name: "by key" } })
        expect(created.status).toBe(201)
        const audit = yield* auditOf(created.body.id)
        expect(audit[0]!.actor_type).toBe("api_key")
        expect((yield* call("POST", triggersPath(env), { bearer: operatorKey, body: { name: "x" } })).status).toBe(403)
        expect((yield* call("GET", `/api/v1/triggers/${created.body.id}`, { bearer: operatorKey })).status).toBe(200)
        expect((yield* call("GET", triggersPath(other), { bearer: adminKey })).status).toBe(404)
        expect((yield* call("POST", triggersPath(other), { bearer: adminKey, body: { name: "x" } })).status).toBe(404)
      }))
  })

  describe("list", () => {
    it.effect("newest first, keyset pages, workerId filter, bad cursor and limit 400", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const worker = yield* registerWorker(env)
        const a = yield* createTrigger(env, { name: "a" })
        const b = yield* createTrigger(env, { name: "b", workerId: worker.workerId })
        const c = yield* createTrigger(env, { name: "c" })
        const first = yield* call("GET", `${triggersPath(env)}?limit=2`, { cookie: env.user.cookie })
        expect(first.status).toBe(200)
        expect(first.body.items.map((t: any) => t.id)).toEqual([c.id, b.id])
        expect(first.body.nextCursor).toBeTypeOf("string")
        const second = yield* call("GET", `${triggersPath(env)}?limit=2&cursor=${first.body.nextCursor}`, { cookie: env.user.cookie })
        expect(second.body.items.map((t: any) => t.id)).toEqual([a.id])
        expect(second.body.nextCursor).toBeNull()
        const pinned = yield* call("GET", `${triggersPath(env)}?workerId=${worker.workerId}`, { cookie: env.user.cookie })
        expect(pinned.body.items.map((t: any) => t.id)).toEqual([b.id])
        for (const qs of ["limit=0", "limit=201", "limit=abc", "cursor=%%%", "cursor=bm90LWEtdXVpZA", "workerId=nope"]) {
          const bad = yield* call("GET", `${triggersPath(env)}?${qs}`, { cookie: env.user.cookie })
          expect(bad.status, qs).toBe(400)
          expect(bad.body.error).toBeTypeOf("string")
        }
      }))
  })

  describe("patch", () => {
    it.effect("changes only the given fields and audits their names", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const t = yield* createTrigger(env, { name: "before", description: "d", maxRetries: 2, input: { a: 1 } })
        const res = yield* call("PATCH", `/api/v1/triggers/${t.id}`, {
          cookie: env.user.cookie,
          body: { name: "after", description: null, input: [1, "two"] }
        })
        expect(res.status).toBe(200)
        expect(res.body).toMatchObject({ name: "after", description: null, input: [1, "two"], maxRetries: 2, timeoutSeconds: 3600 })
        expect(new Date(res.body.updatedAt).getTime()).toBeGreaterThanOrEqual(new Date(t.updatedAt as string).getTime())
        const audit = yield* auditOf(t.id)
        expect(audit.map((a) => a.action)).toEqual(["trigger.created", "trigger.updated"])
        expect([...audit[1]!.metadata.changed].sort()).toEqual(["description", "input", "name"])
        const invalid = yield* call("PATCH", `/api/v1/triggers/${t.id}`, {
          cookie: env.user.cookie,
          body: { name: "", maxRetries: -1, webhookSecret: "short" }
        })
        expect(invalid.status).toBe(400)
        expect(Object.keys(invalid.body.details.fieldErrors).sort()).toEqual(["maxRetries", "name", "webhookSecret"])
      }))

    it.effect("command: set and changed by admins only, audited by name (never its text), null clears it, blank refused", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const operator = yield* addMember(env, "operator")
        const operatorKey = yield* mintApiKey(env, "operator")
        const t = yield* createTrigger(env, { name: "build", command: "make all" })
        expect(t.command).toBe("make all")
        const one = `/api/v1/triggers/${t.id}`
        // Those who may only run the trigger cannot choose what it executes.
        expect((yield* call("PATCH", one, { cookie: operator.cookie, body: { command: "id" } })).status).toBe(403)
        expect((yield* call("PATCH", one, { bearer: operatorKey, body: { command: "id" } })).status).toBe(403)
        expect((yield* call("GET", one, { cookie: env.user.cookie })).body.command).toBe("make all")
        const changed = yield* call("PATCH", one, { cookie: env.user.cookie, body: { command: "make docs" } })
        expect(changed.status).toBe(200)
        expect(changed.body.command).toBe("make docs")
        const audit = yield* auditOf(t.id)
        expect(audit.map((a) => a.action)).toEqual(["trigger.created", "trigger.updated"])
        expect(audit[0]!.metadata.hasCommand).toBe(true)
        expect(audit[1]!.metadata.changed).toEqual(["command"])
        expect(JSON.stringify(audit)).not.toContain("make docs")
        const blank = yield* call("PATCH", one, { cookie: env.user.cookie, body: { command: "  " } })
        expect(blank.status).toBe(400)
        expect(Object.keys(blank.body.details.fieldErrors)).toEqual(["command"])
        const cleared = yield* call("PATCH", one, { cookie: env.user.cookie, body: { command: null } })
        expect(cleared.body.command).toBeNull()
      }))

    it.effect("secret: empty or absent keeps it, a new value replaces it, webhookUrl null removes the webhook", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const t = yield* createTrigger(env, { webhookUrl: publicHook, webhookSecret: secret })
        const path = `/api/v1/triggers/${t.id}`
        const original = (yield* secretColumn(t.id)).webhook_secret_enc

        const keep = yield* call("PATCH", path, { cookie: env.user.cookie, body: { webhookSecret: "", name: "renamed" } })
        expect(keep.status).toBe(200)
        expect(keep.body.hasWebhookSecret).toBe(true)
        expect((yield* secretColumn(t.id)).webhook_secret_enc).toBe(original)
        yield* call("PATCH", path, { cookie: env.user.cookie, body: { maxRetries: 1 } })
        expect((yield* secretColumn(t.id)).webhook_secret_enc).toBe(original)

        const replacement = "another-secret-value-9876543210"
        const replace = yield* call("PATCH", path, { cookie: env.user.cookie, body: { webhookSecret: replacement } })
        expect(replace.status).toBe(200)
        expect(JSON.stringify(replace.body)).not.toContain(replacement)
        const replaced = (yield* secretColumn(t.id)).webhook_secret_enc
        expect(replaced).not.toBe(original)
        expect(replaced).not.toContain(replacement)
        const audit = yield* auditOf(t.id)
        expect(audit.at(-1)!.metadata).toEqual({ changed: ["webhookSecret"] })
        expect(JSON.stringify(audit)).not.toContain(replacement)

        const removed = yield* call("PATCH", path, { cookie: env.user.cookie, body: { webhookUrl: null } })
        expect(removed.status).toBe(200)
        expect(removed.body).toMatchObject({ webhookUrl: null, hasWebhookSecret: false })
      }))
  })

  describe("delete", () => {
    it.effect("409 while a run is active; 204 afterwards, then 404 everywhere and gone from listings", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const t = yield* createTrigger(env)
        const path = `/api/v1/triggers/${t.id}`
        const sql = yield* SqlClient.SqlClient
        for (const status of ["queued", "assigned", "claimed", "running"] as const) {
          const runId = yield* insertRun(t.id, env.environmentId, { status })
          const blocked = yield* call("DELETE", path, { cookie: env.user.cookie })
          expect(blocked.status, status).toBe(409)
          expect(blocked.body.error).toBeTypeOf("string")
          yield* sql`UPDATE runs SET status = 'succeeded', ended_at = now() WHERE id = ${runId}`.pipe(Effect.orDie)
        }
        yield* insertRun(t.id, env.environmentId, { status: "failed" })
        const done = yield* call("DELETE", path, { cookie: env.user.cookie })
        expect(done.status).toBe(204)
        for (const [method, p] of [["GET", path], ["PATCH", path], ["DELETE", path], ["POST", `${path}/rotate-mcp-token`]] as const) {
          const res = yield* call(method, p, { cookie: env.user.cookie, body: method === "PATCH" ? { name: "x" } : undefined })
          expect(res.status, `${method} ${p}`).toBe(404)
          expect(res.body).toEqual({ error: "trigger not found" })
        }
        const list = yield* call("GET", triggersPath(env), { cookie: env.user.cookie })
        expect(list.body.items.map((x: any) => x.id)).not.toContain(t.id)
        const audit = yield* auditOf(t.id)
        expect(audit.map((a) => a.action)).toEqual(["trigger.created", "trigger.deleted"])
      }))
  })

  describe("delete races", () => {
    it.effect("a run committed while the delete waits for the trigger row blocks the delete", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const t = yield* createTrigger(env)
        const sql = yield* SqlClient.SqlClient
        // Plays a run request: it holds the trigger row FOR SHARE, the DELETE arrives,
        // then the run row commits. The DELETE must see it and answer 409.
        const status = yield* sql.withTransaction(Effect.gen(function*() {
          yield* sql`SELECT id FROM triggers WHERE id = ${t.id} AND deleted_at IS NULL FOR SHARE`
          const pending = yield* Effect.fork(call("DELETE", `/api/v1/triggers/${t.id}`, { cookie: env.user.cookie }))
          yield* Effect.sleep("300 millis")
          yield* insertRun(t.id, env.environmentId, { status: "queued" })
          return pending
        })).pipe(Effect.orDie, Effect.flatMap((fiber) => Effect.map(fiber.await, (exit) => exit)))
        expect(status._tag).toBe("Success")
        if (status._tag === "Success") expect(status.value.status).toBe(409)
        const got = yield* call("GET", `/api/v1/triggers/${t.id}`, { cookie: env.user.cookie })
        expect(got.status).toBe(200)
      }))
  })

  describe("rotate MCP token", () => {
    it.effect("shows a fresh mcp_ token once and stores only its hash", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const t = yield* createTrigger(env)
        const path = `/api/v1/triggers/${t.id}/rotate-mcp-token`
        const first = yield* call("POST", path, { cookie: env.user.cookie })
        expect(first.status).toBe(200)
        expect(Object.keys(first.body)).toEqual(["mcpToken"])
        expect(first.body.mcpToken).toMatch(/^mcp_[A-Za-z0-9_-]{43}$/)
        expect((yield* secretColumn(t.id)).mcp_token_hash).toBe(sha256(first.body.mcpToken))
        const second = yield* call("POST", path, { cookie: env.user.cookie })
        expect(second.body.mcpToken).not.toBe(first.body.mcpToken)
        expect((yield* secretColumn(t.id)).mcp_token_hash).toBe(sha256(second.body.mcpToken))
        const got = yield* call("GET", `/api/v1/triggers/${t.id}`, { cookie: env.user.cookie })
        expect(JSON.stringify(got.body)).not.toContain(second.body.mcpToken)
        const audit = yield* auditOf(t.id)
        expect(audit.map((a) => a.action)).toEqual(["trigger.created", "trigger.mcp_token_rotated", "trigger.mcp_token_rotated"])
        expect(JSON.stringify(audit)).not.toContain(first.body.mcpToken)
        expect(JSON.stringify(audit)).not.toContain(second.body.mcpToken)
      }))
  })
})
