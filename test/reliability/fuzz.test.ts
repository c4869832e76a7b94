import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Runtime from "effect/Runtime"
import fc from "fast-check"
import { call, layer, registerUser, type RequestOptions } from "../support/TestApp.js"

/**
 * Property-based bad input: random and malformed paths, query strings,
 * headers and bodies against every endpoint of the OpenAPI document, with and
 * without valid credentials. Never a 5xx, always the `{error}` body on 4xx,
 * and a rejected request changes no stored data.
 */

type Method = "GET" | "POST" | "PATCH" | "PUT" | "DELETE"

// Rows as JSON minus the columns that legitimately move on any authenticated
// call (contact and key-usage timestamps) and the login-throttle table.
const tables = [
  "users", "workspaces", "environments", "members", "api_keys", "audit_log", "workers",
  "triggers", "runs", "webhook_outbox", "webhook_deliveries", "sessions"
]
const snapshot = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const parts: Array<string> = []
  for (const table of tables) {
    const rows = yield* sql.unsafe<{ n: string; h: string | null }>(
      `SELECT count(*)::text AS n, md5(string_agg((to_jsonb(t) - 'last_used_at' - 'last_seen_at')::text, ',' ORDER BY (to_jsonb(t)::text))) AS h FROM ${table} t`
    )
    parts.push(`${table}:${rows[0]!.n}:${rows[0]!.h ?? ""}`)
  }
  return parts.join("|")
}).pipe(Effect.orDie)

const weirdSegment = fc.oneof(
  fc.uuid(),
  fc.constantFrom("not-a-uuid", "00000000-0000-0000-0000-000000000000", "..", "%00", "%zz", "null", "-1", "9".repeat(60), "é☃𝄞", "' OR 1=1 --"),
  fc.string({ maxLength: 40 }).map((s) => encodeURIComponent(s))
)

const weirdValue = fc.oneof(
  fc.constantFrom("", "-1", "0", "201", "abc", "null", "true", "1e309", "NaN", "queued,running", "bad-cursor", "2026-13-45", "%", "é☃", "x".repeat(5000)),
  fc.string({ maxLength: 30 })
)

const deep = (depth: number): unknown => (depth === 0 ? {} : { a: deep(depth - 1) })

const weirdBody = fc.oneof(
  fc.constant<unknown>(undefined),
  fc.constant<unknown>(null),
  fc.jsonValue({ maxDepth: 3 }),
  fc.record({
    name: fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.constant("x".repeat(300))),
    email: fc.oneof(fc.emailAddress(), fc.string(), fc.constant(null)),
    password: fc.oneof(fc.string(), fc.integer()),
    role: fc.oneof(fc.constantFrom("viewer", "operator", "admin", "owner", "root"), fc.string()),
    prefix: fc.oneof(fc.constantFrom("pwk", "wrk", "xyz"), fc.string()),
    userId: fc.oneof(fc.uuid(), fc.string()),
    label: fc.oneof(fc.string({ maxLength: 300 }), fc.integer()),
    status: fc.oneof(fc.constantFrom("succeeded", "failed", "running"), fc.string()),
    costUsd: fc.oneof(fc.constantFrom("0.1", "-1", "1e5", "0.123456789", "abc"), fc.double()),
    timeoutSeconds: fc.oneof(fc.integer(), fc.double(), fc.string()),
    webhookUrl: fc.oneof(fc.webUrl(), fc.constantFrom("http://127.0.0.1/x", "ftp://x", "javascript:alert(1)"), fc.string()),
    webhookSecret: fc.string({ maxLength: 40 }),
    input: fc.jsonValue({ maxDepth: 2 })
  }, { requiredKeys: [] }),
  fc.constant<unknown>(deep(200)),
  fc.constant<unknown>({ name: "\u0000\uFFFF\uD800" }),
  fc.array(fc.anything({ maxDepth: 2 }), { maxLength: 5 })
)

const rawBody = fc.constantFrom("{", "[1,2", "\"unterminated", "{\"a\":}", "nul", "\u0000", "{\"name\": \"x\"}}")

interface Endpoint {
  readonly method: Method
  readonly template: string
}

const endpointsOf = (spec: any): ReadonlyArray<Endpoint> =>
  Object.entries(spec.paths as Record<string, Record<string, unknown>>).flatMap(([template, ops]) =>
    Object.keys(ops)
      .filter((m) => ["get", "post", "patch", "put", "delete"].includes(m))
      // Logging out would end the fuzzing session itself; logout has its own tests.
      .filter((m) => template !== "/api/v1/auth/logout" || m !== "post")
      .map((m) => ({ method: m.toUpperCase() as Method, template }))
  )

withLayer(layer(), { excludeTestServices: true })("fuzz", (it) => {
  describe("bad input on every endpoint", () => {
    it.effect("never a 5xx, always {error}, and rejected requests change nothing", () =>
      Effect.gen(function*() {
        const user = yield* registerUser("fuzz")
        const spec = (yield* call("GET", "/api/v1/openapi.json")).body
        const endpoints = endpointsOf(spec)
        expect(endpoints.length).toBeGreaterThan(3)
        const runtime = yield* Effect.runtime<any>()
        const run = <A>(effect: Effect.Effect<A, never, any>) => Runtime.runPromise(runtime)(effect)
        const credentials = fc.constantFrom<Pick<RequestOptions, "cookie" | "bearer" | "noOrigin">>(
          {},
          { cookie: user.cookie },
          { cookie: user.cookie, noOrigin: true },
          { bearer: "pwk_forged" },
          { bearer: "wkt_forged" },
          { cookie: "auth_token=garbage" }
        )
        let requests = 0
        const statuses = new Map<number, number>()
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(
              fc.constantFrom(...endpoints),
              fc.array(weirdSegment, { minLength: 4, maxLength: 4 }),
              fc.dictionary(fc.constantFrom("limit", "cursor", "status", "from", "to", "workerId", "email", "action", "actions", "targetId", "wait", "max", "claim"), weirdValue, { maxKeys: 4 }),
              fc.oneof(weirdBody.map((b) => ({ body: b })), rawBody.map((r) => ({ rawBody: r }))),
              credentials,
              fc.dictionary(fc.constantFrom("idempotency-key", "content-type", "origin", "x-forwarded-for"), fc.string({ maxLength: 300 }).map((s) => s.replace(/[^\x20-\x7e]/g, "")), { maxKeys: 2 }),
              async (endpoint, segments, query, payload, creds, headers) => {
                let i = 0
                const path = endpoint.template.replace(/\{[^}]+\}/g, () => segments[i++ % segments.length]!)
                const qs = new URLSearchParams(query).toString()
                const before = await run(snapshot)
                const res = await run(call(endpoint.method, qs ? `${path}?${qs}` : path, { ...creds, ...payload, headers }))
                requests++
                statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
                expect(res.status, `${endpoint.method} ${path}?${qs} → ${res.status} ${JSON.stringify(res.body)}`).toBeLessThan(500)
                if (res.status >= 400) {
                  expect(typeof res.body?.error, JSON.stringify(res.body)).toBe("string")
                  expect(await run(snapshot)).toBe(before)
                }
              }
            ),
            { numRuns: 400, seed: Number(process.env.FUZZ_SEED ?? 20261122) }
          )
        )
        expect(requests).toBeGreaterThanOrEqual(400)
        yield* Effect.logInfo("fuzz statuses", Object.fromEntries(statuses))
      }))
  })
})
