import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import {
  addEnvironment,
  createTrigger,
  mintApiKey,
  mintRegistrationToken,
  registerWorker,
  setupEnvironment
} from "../support/Fixtures.js"
import { call, layer } from "../support/TestApp.js"
import { snapshot } from "./snapshot.js"

/**
 * Security checks across the whole service: no secret readable in the
 * database, `pwk_` keys confined to their environment, `wkt_` tokens confined
 * to their worker, and cookie calls refused without an allowed Origin.
 */

const webhookSecret = "plaintext-webhook-secret-4f9a1c"

interface ColumnHit {
  readonly table: string
  readonly column: string
  readonly value: string
}

/** Every text, varchar, json and jsonb column of every table, searched for each value. */
const scan = (values: Record<string, string>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = yield* sql<{ table_name: string; column_name: string }>`
      SELECT c.table_name, c.column_name FROM information_schema.columns c
      JOIN information_schema.tables t ON t.table_name = c.table_name AND t.table_schema = c.table_schema
      WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
        AND c.data_type IN ('text', 'character varying', 'json', 'jsonb')`
    const hits: Array<ColumnHit> = []
    for (const { column_name, table_name } of columns) {
      for (const [name, value] of Object.entries(values)) {
        const rows = yield* sql.unsafe<{ n: string }>(
          `SELECT count(*)::text AS n FROM "${table_name}" WHERE strpos("${column_name}"::text, $1) > 0`,
          [value]
        )
        if (rows[0]!.n !== "0") hits.push({ table: table_name, column: column_name, value: name })
      }
    }
    return { hits, columns: columns.length }
  }).pipe(Effect.orDie)

withLayer(layer(), { excludeTestServices: true })("security", (it) => {
  describe("secrets at rest", () => {
    it.effect("no token, password or webhook secret is readable in any column of any table", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment("secrets")
        const apiKey = yield* mintApiKey(env, "admin")
        const registrationToken = yield* mintRegistrationToken(env)
        const worker = yield* registerWorker(env, "scanner")
        const trigger = yield* createTrigger(env, {
          name: "secret-scan-trigger",
          webhookUrl: "https://example.com/hook",
          webhookSecret
        })
        const mcp = yield* call("POST", `/api/v1/triggers/${trigger.id}/rotate-mcp-token`, { cookie: env.user.cookie })
        expect(mcp.status).toBe(200)
        // A PATCH with a new secret, and a run that snapshots it.
        const patched = yield* call("PATCH", `/api/v1/triggers/${trigger.id}`, {
          cookie: env.user.cookie,
          body: { webhookSecret: `${webhookSecret}-v2` }
        })
        expect(patched.status).toBe(200)
        expect((yield* call("POST", `/api/v1/triggers/${trigger.id}/run`, { bearer: apiKey })).status).toBe(201)
        const sessionJwt = env.user.cookie.replace(/^auth_token=/, "")

        const { columns, hits } = yield* scan({
          pwk: apiKey,
          wrk: registrationToken,
          wkt: worker.token,
          mcp: mcp.body.mcpToken,
          webhookSecret,
          webhookSecretV2: `${webhookSecret}-v2`,
          password: "correct horse battery",
          sessionJwt,
          // Control: a value stored in plain text on purpose, so a broken scan cannot pass.
          control: "secret-scan-trigger"
        })
        expect(columns).toBeGreaterThan(20)
        expect(hits.filter((h) => h.value !== "control")).toEqual([])
        expect(hits).toContainEqual({ table: "triggers", column: "name", value: "control" })
        yield* Effect.logInfo("secret scan").pipe(Effect.annotateLogs({ columnsScanned: columns, secretValues: 8, plaintextFound: 0 }))
      }))
  })

  describe("pwk_ keys are confined to their environment", () => {
    it.effect("an admin key of one environment can do nothing in another of the same workspace", () =>
      Effect.gen(function*() {
        const home = yield* setupEnvironment("home")
        const other = yield* addEnvironment(home, "other")
        const key = yield* mintApiKey(home, "admin")
        const otherTrigger = yield* createTrigger(other, { name: "theirs" })
        const otherKeyRes = yield* call("POST", `/api/v1/environments/${other.environmentId}/api-keys`, {
          cookie: home.user.cookie,
          body: { name: "theirs", prefix: "pwk" }
        })
        expect(otherKeyRes.status).toBe(201)
        const e = `/api/v1/environments/${other.environmentId}`
        const t = `/api/v1/triggers/${otherTrigger.id}`
        const attempts: Array<[method: "GET" | "POST" | "PATCH" | "DELETE", path: string, body?: unknown]> = [
          ["GET", `${e}/triggers`],
          ["POST", `${e}/triggers`, { name: "planted" }],
          ["GET", `${e}/runs`],
          ["GET", `${e}/workers`],
          ["GET", `${e}/members`],
          ["POST", `${e}/members`, { userId: home.user.id, role: "viewer" }],
          ["GET", `${e}/api-keys`],
          ["POST", `${e}/api-keys`, { name: "planted", prefix: "pwk" }],
          ["DELETE", `${e}/api-keys/${otherKeyRes.body.id}`],
          ["GET", `${e}/audit-log`],
          ["GET", `${e}/dashboard/overview`],
          ["PATCH", e, { name: "renamed" }],
          ["DELETE", e],
          ["GET", t],
          ["PATCH", t, { name: "renamed" }],
          ["DELETE", t],
          ["POST", `${t}/run`],
          ["POST", `${t}/rotate-mcp-token`],
          ["GET", `${t}/runs`],
          ["GET", `${t}/webhook-deliveries`]
        ]
        const before = yield* snapshot
        for (const [method, path, body] of attempts) {
          const res = yield* call(method, path, { bearer: key, body })
          expect(res.status, `${method} ${path} → ${res.status} ${JSON.stringify(res.body)}`).toBe(404)
          expect(typeof res.body.error).toBe("string")
        }
        expect(yield* snapshot).toBe(before)
        // Control: the same key works at home.
        expect((yield* call("GET", `/api/v1/environments/${home.environmentId}/triggers`, { bearer: key })).status).toBe(200)
        yield* Effect.logInfo("pwk confinement").pipe(Effect.annotateLogs({ attempts: attempts.length, refused: attempts.length }))
      }))
  })

  describe("wkt_ tokens are confined to their worker", () => {
    it.effect("a worker token can neither see nor move another worker's runs", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment("workers")
        const mine = yield* registerWorker(env, "mine")
        const theirs = yield* registerWorker(env, "theirs")
        const trigger = yield* createTrigger(env, { name: "pinned", workerId: theirs.workerId })
        const created = yield* call("POST", `/api/v1/triggers/${trigger.id}/run`, { cookie: env.user.cookie })
        expect(created.status).toBe(201)
        const runId = created.body.id as string
        // Wait for the scheduler to hand the run to its pinned worker (read-only peek, no claim).
        let assigned = false
        for (let i = 0; i < 50 && !assigned; i++) {
          const peek = yield* call("GET", `/api/v1/workers/${theirs.workerId}/poll`, { bearer: theirs.token })
          assigned = peek.body.runs.some((r: { id: string }) => r.id === runId)
          if (!assigned) yield* Effect.sleep("100 millis")
        }
        expect(assigned).toBe(true)

        const before = yield* snapshot
        const attempts: Array<[method: "GET" | "POST", path: string, body?: unknown]> = [
          ["GET", `/api/v1/workers/${theirs.workerId}/poll?claim=true`],
          ...(["claim", "start", "heartbeat", "complete"] as const).flatMap((step): Array<[method: "POST", path: string, body?: unknown]> => [
            ["POST", `/api/v1/workers/${mine.workerId}/runs/${runId}/${step}`, step === "complete" ? { status: "succeeded" } : undefined],
            ["POST", `/api/v1/workers/${theirs.workerId}/runs/${runId}/${step}`, step === "complete" ? { status: "succeeded" } : undefined]
          ])
        ]
        for (const [method, path, body] of attempts) {
          const res = yield* call(method, path, { bearer: mine.token, body })
          expect(res.status, `${method} ${path} → ${res.status} ${JSON.stringify(res.body)}`).toBe(404)
          expect(typeof res.body.error).toBe("string")
        }
        // Its own poll never shows the other worker's run.
        const own = yield* call("GET", `/api/v1/workers/${mine.workerId}/poll?claim=true&max=100`, { bearer: mine.token })
        expect(own.status).toBe(200)
        expect(own.body.runs).toEqual([])
        // A worker token is no user credential either.
        expect((yield* call("GET", `/api/v1/environments/${env.environmentId}/triggers`, { bearer: mine.token })).status).toBe(401)
        expect(yield* snapshot).toBe(before)
        // Control: the owner of the run can claim it.
        expect((yield* call("POST", `/api/v1/workers/${theirs.workerId}/runs/${runId}/claim`, { bearer: theirs.token })).status).toBe(200)
        yield* Effect.logInfo("wkt confinement").pipe(Effect.annotateLogs({ attempts: attempts.length + 1, refused: attempts.length + 1 }))
      }))
  })

  describe("cookie calls need an allowed Origin", () => {
    it.effect("state-changing cookie calls without Origin, or from another origin, are 403 and change nothing", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment("origin")
        const trigger = yield* createTrigger(env, { name: "guarded" })
        const calls: Array<[method: "POST" | "PATCH" | "DELETE", path: string, body?: unknown]> = [
          ["POST", "/api/v1/workspaces", { name: "csrf" }],
          ["PATCH", `/api/v1/environments/${env.environmentId}`, { name: "csrf" }],
          ["POST", `/api/v1/environments/${env.environmentId}/api-keys`, { name: "csrf", prefix: "pwk" }],
          ["POST", `/api/v1/environments/${env.environmentId}/triggers`, { name: "csrf" }],
          ["PATCH", `/api/v1/triggers/${trigger.id}`, { name: "csrf" }],
          ["POST", `/api/v1/triggers/${trigger.id}/run`],
          ["POST", `/api/v1/triggers/${trigger.id}/rotate-mcp-token`],
          ["DELETE", `/api/v1/triggers/${trigger.id}`],
          ["POST", "/api/v1/auth/logout"]
        ]
        const before = yield* snapshot
        for (const [method, path, body] of calls) {
          const bare = yield* call(method, path, { cookie: env.user.cookie, noOrigin: true, body })
          expect(bare.status, `${method} ${path} without Origin → ${bare.status}`).toBe(403)
          expect(typeof bare.body.error).toBe("string")
          const foreign = yield* call(method, path, { cookie: env.user.cookie, noOrigin: true, body, headers: { origin: "https://evil.example" } })
          expect(foreign.status, `${method} ${path} from evil.example → ${foreign.status}`).toBe(403)
        }
        expect(yield* snapshot).toBe(before)
        // Reads need no Origin, and the session survived the refused logout.
        expect((yield* call("GET", "/api/v1/auth/me", { cookie: env.user.cookie, noOrigin: true })).status).toBe(200)
        // Register and login refuse a present but foreign Origin.
        const stranger = yield* call("POST", "/api/v1/auth/register", {
          body: { email: `csrf-${Date.now()}@example.com`, password: "correct horse battery" },
          headers: { origin: "https://evil.example" }
        })
        expect(stranger.status).toBe(403)
        const login = yield* call("POST", "/api/v1/auth/login", {
          body: { email: env.user.email, password: "correct horse battery" },
          headers: { origin: "https://evil.example" }
        })
        expect(login.status).toBe(403)
        // Control: with the allowed Origin the same cookie may write.
        expect((yield* call("POST", "/api/v1/workspaces", { cookie: env.user.cookie, body: { name: "ok" } })).status).toBe(201)
        yield* Effect.logInfo("origin checks").pipe(Effect.annotateLogs({ refused: calls.length * 2 + 2 }))
      }))

    it.effect("bearer calls are exempt from the Origin rule", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment("bearer")
        const key = yield* mintApiKey(env, "admin")
        const res = yield* call("POST", `/api/v1/environments/${env.environmentId}/triggers`, {
          bearer: key,
          body: { name: "scripted" },
          headers: { origin: "https://evil.example" }
        })
        expect(res.status).toBe(201)
      }))
  })
})
