import { describe, expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Runtime from "effect/Runtime"
import fc from "fast-check"
import { createTrigger, registerWorker, setupEnvironment } from "../support/Fixtures.js"
import { call, layer, registerUser, type RequestOptions } from "../support/TestApp.js"
import { snapshot } from "./snapshot.js"

/**
 * Property-based bad input: random and malformed paths, query strings,
 * headers and bodies against every endpoint of the OpenAPI document, with and
 * without valid credentials. Never a 5xx, always the `{error}` body on 4xx,
 * and a rejected request changes no stored data.
 *
 * The second property uses real credentials (the owner's cookie, an admin
 * `pwk_` key, a `wkt_` worker token) and real ids in the path segments (the
 * workspace, environment, trigger, worker, run, key and user), so requests
 * pass authentication and lookups and reach deep into the handlers.
 */

type Method = "GET" | "POST" | "PATCH" | "PUT" | "DELETE"

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

const malformedJson = fc.constantFrom("{", "[1,2", "\"unterminated", "{\"a\":}", "nul", "\u0000", "{\"name\": \"x\"}}")

const nestedText = (depth: number, open: string, close: string) => open.repeat(depth) + "1" + close.repeat(depth)

/** Bodies as the wire carries them: content types the API refuses, nesting, scalars where objects belong. */
const rawBody = fc.oneof(
  malformedJson.map((rawBody) => ({ rawBody })),
  fc.constantFrom(
    { contentType: "multipart/form-data; boundary=xyz", rawBody: "--xyz\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nx\r\n--xyz--\r\n" },
    { contentType: "multipart/form-data; boundary=", rawBody: "--\r\n" },
    { contentType: "multipart/form-data", rawBody: "garbage" },
    { contentType: "multipart/form-data; boundary=x", rawBody: "" },
    { contentType: "application/x-www-form-urlencoded", rawBody: "[1,2,3]" },
    { contentType: "application/x-www-form-urlencoded", rawBody: "name=x&role=owner" },
    { contentType: "text/plain", rawBody: "{\"name\":\"x\"}" },
    { contentType: "application/octet-stream", rawBody: "\u0000\u0001\u0002" },
    { contentType: "application/json; charset=utf-8", rawBody: "{\"name\":\"x\"}" }
  ),
  fc.constantFrom("1", "\"s\"", "null", "true", "[1,2,3]", "[]").map((rawBody) => ({ rawBody })),
  fc.tuple(fc.constantFrom(65, 1_000, 100_000), fc.constantFrom(["[", "]"], ["{\"a\":", "}"])).map(([depth, [open, close]]) => ({
    rawBody: nestedText(depth, open!, close!)
  }))
)

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
      // The live event stream answers for as long as the client listens (by design);
      // its own tests (test/events) read it with a deadline.
      .filter((m) => !(template.endsWith("/events") && template.startsWith("/api/v1/environments/") && m === "get"))
      .map((m) => ({ method: m.toUpperCase() as Method, template }))
  )

interface Outcome {
  requests: number
  readonly statuses: Map<number, number>
  /** The snapshot after the last request, when it was a rejection (so nothing changed since). */
  unchanged?: string | undefined
}

/** The property's body: one request, then the assertions every answer must meet. */
const check = (run: <A>(effect: Effect.Effect<A, never, any>) => Promise<A>, outcome: Outcome) =>
async (
  endpoint: Endpoint,
  path: string,
  query: Record<string, string>,
  payload: Pick<RequestOptions, "body" | "rawBody" | "contentType">,
  creds: Pick<RequestOptions, "cookie" | "bearer" | "noOrigin">,
  headers: Record<string, string>
) => {
  const qs = new URLSearchParams(query).toString()
  // After a rejection the data is as it was: the snapshot taken then serves as the next one's "before".
  const before = outcome.unchanged ?? await run(snapshot)
  outcome.unchanged = undefined
  const res = await run(call(endpoint.method, qs ? `${path}?${qs}` : path, { ...creds, ...payload, headers }))
  outcome.requests++
  outcome.statuses.set(res.status, (outcome.statuses.get(res.status) ?? 0) + 1)
  expect(res.status, `${endpoint.method} ${path}?${qs} → ${res.status} ${JSON.stringify(res.body)?.slice(0, 500)}`).toBeLessThan(500)
  if (res.status >= 400) {
    expect(typeof res.body?.error, JSON.stringify(res.body)?.slice(0, 500)).toBe("string")
    const after = await run(snapshot)
    expect(after, `${endpoint.method} ${path}?${qs} → ${res.status} changed stored data`).toBe(before)
    outcome.unchanged = after
  }
}

const headerDictionary = fc.oneof(
  { weight: 9, arbitrary: fc.dictionary(
    fc.constantFrom("idempotency-key", "content-type", "origin", "x-forwarded-for"),
    fc.string({ maxLength: 300 }).map((s) => s.replace(/[^\x20-\x7e]/g, "")),
    { maxKeys: 2 }
  ) },
  // Up to 64 KiB: past Node's header limit the server itself answers (431 with {error}).
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom("authorization", "x-request-id", "cookie"), fc.constantFrom(1024, 8 * 1024, 16 * 1024, 64 * 1024))
    .map(([name, size]) => ({ [name]: (name === "authorization" ? "Bearer wkt_" : "") + "a".repeat(size) })) }
)

/** Requests per property: a short pass by default, a long one in CI on Postgres (FUZZ_RUNS). */
const runs = Number(process.env.FUZZ_RUNS ?? 400)
// A request with its two table fingerprints takes tens of milliseconds (more on a busy machine).
const timeout = Math.max(180_000, runs * 150)

const queryKeys = ["limit", "cursor", "status", "from", "to", "workerId", "email", "action", "actions", "targetId", "wait", "max", "claim"] as const

// Long enough for the whole file: no claim deadline or offline worker moves a run mid-property.
withLayer(layer({ claimTimeoutSeconds: 3600, workerOfflineAfterSeconds: 3600 }), { excludeTestServices: true })("fuzz", (it) => {
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
        const outcome: Outcome = { requests: 0, statuses: new Map() }
        const property = check(run, outcome)
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(
              fc.constantFrom(...endpoints),
              fc.array(weirdSegment, { minLength: 4, maxLength: 4 }),
              fc.dictionary(fc.constantFrom(...queryKeys), weirdValue, { maxKeys: 4 }),
              fc.oneof(weirdBody.map((b) => ({ body: b })), rawBody),
              credentials,
              headerDictionary,
              async (endpoint, segments, query, payload, creds, headers) => {
                let i = 0
                const path = endpoint.template.replace(/\{[^}]+\}/g, () => segments[i++ % segments.length]!)
                await property(endpoint, path, query, payload, creds, headers)
              }
            ),
            { numRuns: runs, seed: Number(process.env.FUZZ_SEED ?? 20261122) }
          )
        )
        expect(outcome.requests).toBeGreaterThanOrEqual(runs)
        yield* Effect.logInfo("fuzz statuses").pipe(
          Effect.annotateLogs({ requests: outcome.requests, statuses: JSON.stringify(Object.fromEntries(outcome.statuses)) })
        )
      }), timeout)

    it.effect("with valid credentials and real ids: still never a 5xx, and rejections change nothing", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment("fuzz-deep")
        const key = yield* call("POST", `/api/v1/environments/${env.environmentId}/api-keys`, {
          cookie: env.user.cookie,
          body: { name: "fuzz", prefix: "pwk", role: "admin" }
        })
        expect(key.status).toBe(201)
        const worker = yield* registerWorker(env, "fuzz-worker")
        // Long clocks: a run the fuzzer claims or starts must not time out while it runs.
        const trigger = yield* createTrigger(env, { name: "fuzz", timeoutSeconds: 86400, heartbeatTimeoutSeconds: 3600 })
        const created = yield* call("POST", `/api/v1/triggers/${trigger.id}/run`, { cookie: env.user.cookie })
        expect(created.status).toBe(201)
        const runId = created.body.id as string
        let assigned = false
        for (let n = 0; n < 50 && !assigned; n++) {
          const peek = yield* call("GET", `/api/v1/workers/${worker.workerId}/poll`, { bearer: worker.token })
          assigned = peek.body.runs.some((r: { id: string }) => r.id === runId)
          if (!assigned) yield* Effect.sleep("100 millis")
        }
        expect(assigned).toBe(true)

        const ids = {
          workspace: env.workspaceId,
          environment: env.environmentId,
          trigger: trigger.id,
          worker: worker.workerId,
          run: runId,
          key: key.body.id as string,
          user: env.user.id
        }
        // The id a path parameter names, so most requests pass the lookups.
        const rightId = (template: string, param: string): string => {
          switch (param) {
            case "wsId": return ids.workspace
            case "envId": return ids.environment
            case "keyId": return ids.key
            case "userId": return ids.user
            case "workerId": return ids.worker
            case "runId": return ids.run
            default:
              return template.startsWith("/api/v1/triggers/")
                ? ids.trigger
                : template.startsWith("/api/v1/workers/")
                ? ids.worker
                : ids.environment
          }
        }
        // Deleting the environment or the fuzzer's own key would end the deep exploration
        // early; both have their own tests (tenancy, api keys).
        const keepsItsTarget = (endpoint: Endpoint) =>
          endpoint.method === "DELETE" && (endpoint.template === "/api/v1/environments/{id}" || endpoint.template.endsWith("/api-keys/{keyId}"))

        const spec = (yield* call("GET", "/api/v1/openapi.json")).body
        const endpoints = endpointsOf(spec)
        const runtime = yield* Effect.runtime<any>()
        const run = <A>(effect: Effect.Effect<A, never, any>) => Runtime.runPromise(runtime)(effect)
        type Credentials = Pick<RequestOptions, "cookie" | "bearer" | "noOrigin">
        // Mostly the credential the endpoint takes, so requests get past authentication.
        const credentialsFor = (endpoint: Endpoint) => {
          const workerRoute = endpoint.template.startsWith("/api/v1/workers/{id}")
          return fc.oneof(
            { weight: workerRoute ? 1 : 4, arbitrary: fc.constant<Credentials>({ cookie: env.user.cookie }) },
            { weight: workerRoute ? 1 : 4, arbitrary: fc.constant<Credentials>({ bearer: key.body.token as string }) },
            { weight: workerRoute ? 8 : 1, arbitrary: fc.constant<Credentials>({ bearer: worker.token }) },
            { weight: 1, arbitrary: fc.constant<Credentials>({ cookie: env.user.cookie, noOrigin: true }) },
            { weight: 1, arbitrary: fc.constant<Credentials>({}) }
          )
        }
        // Bodies close to valid ones, so the handlers' own checks (not only decoding) are exercised.
        const plausibleBody = fc.record({
          name: fc.oneof(fc.string({ minLength: 1, maxLength: 20 }), fc.constant("x".repeat(201))),
          status: fc.constantFrom("succeeded", "failed", "running"),
          stdout: fc.string({ maxLength: 50 }),
          role: fc.constantFrom("viewer", "operator", "admin", "owner"),
          prefix: fc.constantFrom("pwk", "wrk"),
          userId: fc.constantFrom(env.user.id, "01900000-0000-7000-8000-000000000000"),
          label: fc.string({ minLength: 1, maxLength: 20 }),
          costUsd: fc.constantFrom("0.01", "12.5", "0.123456789"),
          faultClass: fc.constantFrom("infra", "client", "none"),
          timeoutSeconds: fc.integer({ min: 0, max: 90_000 }),
          maxRetries: fc.integer({ min: -1, max: 11 }),
          workerId: fc.constantFrom(worker.workerId, null),
          webhookUrl: fc.constantFrom("https://example.com/hook", null, "http://127.0.0.1/hook"),
          webhookSecret: fc.constantFrom("", "short", "a-webhook-secret-long-enough"),
          input: fc.jsonValue({ maxDepth: 2 })
        }, { requiredKeys: [] })
        const anyId = fc.constantFrom(...Object.values(ids))
        const segment = (template: string, param: string, destructive: boolean) =>
          fc.oneof(
            { weight: destructive ? 0 : 6, arbitrary: fc.constant(rightId(template, param)) },
            { weight: 1, arbitrary: destructive ? weirdSegment : anyId },
            { weight: 2, arbitrary: weirdSegment }
          )
        const request = fc.constantFrom(...endpoints).chain((endpoint) => {
          const params = [...endpoint.template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!)
          return fc.tuple(
            fc.constant(endpoint),
            fc.tuple(...params.map((p) => segment(endpoint.template, p, keepsItsTarget(endpoint)))).map((values) => {
              let i = 0
              return endpoint.template.replace(/\{[^}]+\}/g, () => values[i++]!)
            }),
            credentialsFor(endpoint)
          )
        })
        const value = fc.oneof(weirdValue, anyId, fc.constantFrom("1", "50", "200", "queued", "assigned", "succeeded", "true", "2026-01-01T00:00:00.000Z"))
        const outcome: Outcome = { requests: 0, statuses: new Map() }
        const property = check(run, outcome)
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(
              request,
              fc.dictionary(fc.constantFrom(...queryKeys), value, { maxKeys: 4 }),
              fc.oneof(
                { weight: 3, arbitrary: plausibleBody.map((b) => ({ body: b as unknown })) },
                { weight: 2, arbitrary: weirdBody.map((b) => ({ body: b })) },
                { weight: 1, arbitrary: rawBody }
              ),
              headerDictionary,
              async ([endpoint, path, creds], query, payload, headers) => {
                await property(endpoint, path, query, payload, creds, headers)
              }
            ),
            { numRuns: runs, seed: Number(process.env.FUZZ_SEED ?? 20261122) }
          )
        )
        expect(outcome.requests).toBeGreaterThanOrEqual(runs)
        // The credentials really opened doors: some requests succeeded, some were judged on content.
        const count = (f: (status: number) => boolean) =>
          [...outcome.statuses].filter(([s]) => f(s)).reduce((a, [, n]) => a + n, 0)
        expect(count((s) => s >= 200 && s < 300)).toBeGreaterThan(20)
        expect(count((s) => s === 400 || s === 409)).toBeGreaterThan(20)
        yield* Effect.logInfo("deep fuzz statuses").pipe(
          Effect.annotateLogs({ requests: outcome.requests, statuses: JSON.stringify(Object.fromEntries(outcome.statuses)) })
        )
      }), timeout)
  })
})
