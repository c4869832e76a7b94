import * as HttpServer from "@effect/platform/HttpServer"
import { describe, expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as net from "node:net"
import { createTrigger, setupEnvironment } from "../support/Fixtures.js"
import { call, layer } from "../support/TestApp.js"
import { snapshot } from "./snapshot.js"

// The HTTP edge (issue 14): content types, nesting, oversized headers, bad
// request lines, timestamps. Every answer is a 4xx with {error}, never a 500,
// and a rejected request writes nothing.

/** Sends raw bytes on a new connection; answers what the server wrote before closing. */
const raw = (port: number, bytes: string) =>
  Effect.promise(() =>
    new Promise<string>((resolve) => {
      const socket = net.connect(port, "127.0.0.1")
      let answer = ""
      socket.on("data", (chunk) => (answer += chunk.toString("utf8")))
      socket.on("error", () => resolve(answer))
      socket.on("close", () => resolve(answer))
      socket.write(bytes)
    })
  )

const jsonOf = (response: string) => JSON.parse(response.slice(response.indexOf("\r\n\r\n") + 4))

const portOf = Effect.map(HttpServer.HttpServer, (server) => (server.address as HttpServer.TcpAddress).port)

const nested = (depth: number, open: string, close: string, inner = "1") => open.repeat(depth) + inner + close.repeat(depth)

withLayer(layer())("HTTP edge", (it) => {
  describe("content types", () => {
    it.effect("multipart (good, bad or no boundary), form, text and binary bodies are 415 {error} and write nothing", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment("edge")
        const trigger = yield* createTrigger(env, { name: "edge" })
        const before = yield* snapshot
        const bodies: ReadonlyArray<readonly [string, string]> = [
          ["multipart/form-data; boundary=xyz", "--xyz\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nx\r\n--xyz--\r\n"],
          ["multipart/form-data; boundary=", "--\r\n"],
          ["multipart/form-data", "garbage"],
          ["multipart/form-data; boundary=\"unterminated", "--x"],
          ["application/x-www-form-urlencoded", "[1,2,3]"],
          ["application/x-www-form-urlencoded", "name=renamed"],
          ["text/plain", "{\"name\":\"renamed\"}"],
          ["application/octet-stream", "\u0000\u0001"],
          ["application/jsonp", "{\"name\":\"renamed\"}"]
        ]
        const targets: ReadonlyArray<readonly ["POST" | "PATCH", string]> = [
          ["POST", "/api/v1/auth/register"],
          ["POST", "/api/v1/workers/register"],
          ["PATCH", `/api/v1/triggers/${trigger.id}`],
          ["PATCH", `/api/v1/environments/${env.environmentId}/members/${env.user.id}`],
          ["POST", `/api/v1/workspaces/${env.workspaceId}/environments`]
        ]
        for (const [method, path] of targets) {
          for (const [contentType, rawBody] of bodies) {
            const res = yield* call(method, path, { cookie: env.user.cookie, rawBody, contentType })
            expect(res.status, `${method} ${path} ${contentType}`).toBe(415)
            expect(res.body.error).toContain("send application/json")
          }
        }
        expect(yield* snapshot).toBe(before)
        const read = yield* call("GET", `/api/v1/triggers/${trigger.id}`, { cookie: env.user.cookie })
        expect(read.body.name).toBe("edge")
      }))

    it.effect("application/json with a charset, and a body with no content type, are read as JSON", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment("edge-json")
        const trigger = yield* createTrigger(env, { name: "edge-json" })
        const patched = yield* call("PATCH", `/api/v1/triggers/${trigger.id}`, {
          cookie: env.user.cookie,
          rawBody: "{\"name\":\"with-charset\"}",
          contentType: "Application/JSON; charset=utf-8"
        })
        expect(patched.status).toBe(200)
        expect(patched.body.name).toBe("with-charset")
        const port = yield* portOf
        const body = JSON.stringify({ email: "no-type@example.com", password: "a-long-password" })
        const answer = yield* raw(
          port,
          `POST /api/v1/auth/register HTTP/1.1\r\nhost: x\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`
        )
        expect(answer).toMatch(/^HTTP\/1.1 201/)
      }))

    it.effect("a declared non-JSON type without a body is not parsed: the request is judged as if it had none", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment("edge-empty")
        const trigger = yield* createTrigger(env, { name: "edge-empty" })
        for (const contentType of ["multipart/form-data; boundary=x", "multipart/form-data", "application/x-www-form-urlencoded"]) {
          const res = yield* call("PATCH", `/api/v1/triggers/${trigger.id}`, { cookie: env.user.cookie, rawBody: "", contentType })
          expect(res.status, contentType).toBe(400)
          expect(typeof res.body.error).toBe("string")
        }
      }))

    it.effect("JSON scalars and arrays on object endpoints are 400 with details, and nothing is written", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment("edge-scalars")
        const trigger = yield* createTrigger(env, { name: "edge-scalars" })
        const before = yield* snapshot
        for (const rawBody of ["[1,2,3]", "1", "\"name\"", "null", "true", "[]"]) {
          const res = yield* call("PATCH", `/api/v1/triggers/${trigger.id}`, { cookie: env.user.cookie, rawBody })
          expect(res.status, rawBody).toBe(400)
          expect(typeof res.body.error).toBe("string")
        }
        expect(yield* snapshot).toBe(before)
      }))
  })

  describe("nesting", () => {
    it.effect("JSON nested deeper than 64 levels is 400 before decoding, up to 100,000 levels; 64 levels decode as usual", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment("edge-deep")
        const trigger = yield* createTrigger(env, { name: "edge-deep" })
        for (const depth of [65, 1_000, 100_000]) {
          for (const rawBody of [nested(depth, "[", "]"), nested(depth, "{\"a\":", "}"), `{"input":${nested(depth, "[", "]")}}`]) {
            const res = yield* call("POST", `/api/v1/triggers/${trigger.id}/run`, { cookie: env.user.cookie, rawBody })
            expect(res.status, `depth ${depth}`).toBe(400)
            expect(res.body.error).toContain("nested deeper than 64 levels")
          }
        }
        // Brackets inside strings are not nesting.
        const quoted = yield* call("POST", `/api/v1/triggers/${trigger.id}/run`, {
          cookie: env.user.cookie,
          rawBody: JSON.stringify({ input: { text: "[".repeat(10_000) } })
        })
        expect(quoted.status).toBe(201)
        const deepest = yield* call("POST", `/api/v1/triggers/${trigger.id}/run`, {
          cookie: env.user.cookie,
          rawBody: `{"input":${nested(63, "[", "]")}}`
        })
        expect(deepest.status).toBe(201)
      }))
  })

  describe("what Node refuses before the app", () => {
    it.effect("headers over Node's limit are 431 {error} (HEAD: no body); long but allowed headers reach the app; the connection closes", () =>
      Effect.gen(function*() {
        const port = yield* portOf
        for (const size of [20 * 1024, 64 * 1024]) {
          for (const header of ["authorization: Bearer pwk_", "x-request-id: "]) {
            const answer = yield* raw(port, `GET /api/v1/workers/me HTTP/1.1\r\nhost: x\r\n${header}${"a".repeat(size)}\r\n\r\n`)
            expect(answer, `${header} ${size}`).toMatch(/^HTTP\/1.1 431 /)
            expect(answer.toLowerCase()).toContain("connection: close")
            expect(jsonOf(answer)).toEqual({ error: "request headers too large" })
          }
        }
        // HEAD too, with the same head and no body (its bytes would be read as the next answer).
        for (const size of [20 * 1024, 64 * 1024]) {
          const answer = yield* raw(port, `HEAD /api/v1/workers/me HTTP/1.1\r\nhost: x\r\nauthorization: Bearer pwk_${"a".repeat(size)}\r\n\r\n`)
          expect(answer, `HEAD ${size}`).toMatch(/^HTTP\/1.1 431 /)
          expect(answer.toLowerCase()).toContain("connection: close")
          expect(answer.endsWith("\r\n\r\n"), answer).toBe(true)
        }
        const allowed = yield* call("GET", "/api/v1/workers/me", { bearer: `wkt_${"a".repeat(8 * 1024)}` })
        expect(allowed.status).toBe(401)
        expect(typeof allowed.body.error).toBe("string")
      }))

    it.effect("a malformed request line or header is 400 {error}", () =>
      Effect.gen(function*() {
        const port = yield* portOf
        for (const bytes of ["GARBAGE\r\n\r\n", "GET / HTTP/9.9\r\n\r\n", "GET /api/v1/health HTTP/1.1\r\nbad header line\r\n\r\n"]) {
          const answer = yield* raw(port, bytes)
          expect(answer, JSON.stringify(bytes)).toMatch(/^HTTP\/1.1 400 /)
          expect(jsonOf(answer)).toEqual({ error: "malformed HTTP request" })
        }
      }))
  })

  describe("run listing time filters", () => {
    it.effect("from/to accept ISO 8601 only", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment("edge-time")
        const base = `/api/v1/environments/${env.environmentId}/runs`
        for (const bad of ["yesterday", "1", "2026", "Nov 25 2026", "2026-11-25T08:00", "2026-13-45", "2026-11-25 08:00:00Z"]) {
          const res = yield* call("GET", `${base}?from=${encodeURIComponent(bad)}`, { cookie: env.user.cookie })
          expect(res.status, bad).toBe(400)
          expect(res.body.details.fieldErrors.from).toBeDefined()
        }
        for (const good of ["2026-11-25", "2026-11-25T08:00:00Z", "2026-11-25T08:00:00.123+02:00", "2026-11-25T08:00Z"]) {
          const res = yield* call("GET", `${base}?from=${encodeURIComponent(good)}&to=2030-01-01T00:00:00Z`, { cookie: env.user.cookie })
          expect(res.status, good).toBe(200)
        }
      }))
  })
})
