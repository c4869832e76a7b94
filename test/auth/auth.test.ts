import { describe, expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { call, cookieOf, layer, origin, registerUser } from "../support/TestApp.js"

withLayer(layer(), { excludeTestServices: true })("auth", (it) => {
  describe("register", () => {
    it.effect("creates the user, normalises the email and sets the session cookie", () =>
      Effect.gen(function*() {
        const res = yield* call("POST", "/api/v1/auth/register", {
          body: { email: "  Alice@Example.COM ", password: "password123" },
          headers: { origin }
        })
        expect(res.status).toBe(201)
        expect(res.body.email).toBe("alice@example.com")
        expect(Object.keys(res.body).sort()).toEqual(["createdAt", "email", "id"])
        const setCookie = res.headers["set-cookie"]!
        expect(setCookie).toMatch(/^auth_token=[^;]+; HttpOnly; SameSite=Lax; Path=\/; Max-Age=604800$/)
        const me = yield* call("GET", "/api/v1/auth/me", { cookie: cookieOf(res) })
        expect(me.status).toBe(200)
        expect(me.body.id).toBe(res.body.id)
      }))

    it.effect("409 when the email is taken", () =>
      Effect.gen(function*() {
        const user = yield* registerUser()
        const res = yield* call("POST", "/api/v1/auth/register", { body: { email: user.email.toUpperCase(), password: "password123" } })
        expect(res.status).toBe(409)
        expect(res.body).toEqual({ error: "email already registered" })
      }))

    it.effect("400 names every invalid field", () =>
      Effect.gen(function*() {
        const res = yield* call("POST", "/api/v1/auth/register", { body: { email: "nope", password: "short" } })
        expect(res.status).toBe(400)
        expect(res.body.error).toBeTypeOf("string")
        expect(Object.keys(res.body.details.fieldErrors).sort()).toEqual(["email", "password"])
        expect(res.body.details.formErrors).toEqual([])
      }))

    it.effect("400 for a missing body and for malformed JSON", () =>
      Effect.gen(function*() {
        const missing = yield* call("POST", "/api/v1/auth/register", {})
        expect(missing.status).toBe(400)
        expect(missing.body.error).toBeTypeOf("string")
        const malformed = yield* call("POST", "/api/v1/auth/register", { rawBody: "{\"email\":" })
        expect(malformed.status).toBe(400)
        expect(malformed.body).toEqual({ error: "malformed request body: expected valid JSON" })
      }))

    it.effect("403 for a disallowed Origin", () =>
      Effect.gen(function*() {
        const res = yield* call("POST", "/api/v1/auth/register", {
          body: { email: "evil@example.com", password: "password123" },
          headers: { origin: "https://evil.example" }
        })
        expect(res.status).toBe(403)
        expect(res.body.error).toBeTypeOf("string")
      }))
  })

  describe("login", () => {
    it.effect("200 with the user and a new cookie; wrong password and unknown email share one 401", () =>
      Effect.gen(function*() {
        const user = yield* registerUser()
        const ok = yield* call("POST", "/api/v1/auth/login", { body: { email: user.email, password: "correct horse battery" } })
        expect(ok.status).toBe(200)
        expect(ok.body.id).toBe(user.id)
        expect(cookieOf(ok)).toMatch(/^auth_token=/)
        const wrong = yield* call("POST", "/api/v1/auth/login", { body: { email: user.email, password: "wrong password" } })
        const unknown = yield* call("POST", "/api/v1/auth/login", { body: { email: "ghost@example.com", password: "wrong password" } })
        expect(wrong.status).toBe(401)
        expect(unknown.status).toBe(401)
        expect(wrong.body).toEqual(unknown.body)
      }))

    it.effect("429 after repeated failures for one email, even with the right password", () =>
      Effect.gen(function*() {
        const user = yield* registerUser()
        for (let i = 0; i < 5; i++) {
          const res = yield* call("POST", "/api/v1/auth/login", { body: { email: user.email, password: "bad password" } })
          expect(res.status).toBe(401)
        }
        const locked = yield* call("POST", "/api/v1/auth/login", { body: { email: user.email, password: "correct horse battery" } })
        expect(locked.status).toBe(429)
        expect(locked.body.error).toBeTypeOf("string")
      }))
  })

  describe("sessions", () => {
    it.effect("logout revokes the token server-side and clears the cookie", () =>
      Effect.gen(function*() {
        const user = yield* registerUser()
        const out = yield* call("POST", "/api/v1/auth/logout", { cookie: user.cookie })
        expect(out.status).toBe(204)
        expect(out.headers["set-cookie"]).toMatch(/^auth_token=; .*Max-Age=0/)
        const me = yield* call("GET", "/api/v1/auth/me", { cookie: user.cookie })
        expect(me.status).toBe(401)
      }))

    it.effect("401 without credentials or with a forged token", () =>
      Effect.gen(function*() {
        const none = yield* call("GET", "/api/v1/auth/me")
        expect(none.status).toBe(401)
        expect(none.body.error).toBeTypeOf("string")
        const forged = yield* call("GET", "/api/v1/auth/me", { cookie: "auth_token=eyJhbGciOiJIUzI1NiJ9.e30.AAAA" })
        expect(forged.status).toBe(401)
      }))

    it.effect("cookie mutations need an allowed Origin", () =>
      Effect.gen(function*() {
        const user = yield* registerUser()
        const res = yield* call("POST", "/api/v1/auth/logout", { cookie: user.cookie, noOrigin: true })
        expect(res.status).toBe(403)
        const me = yield* call("GET", "/api/v1/auth/me", { cookie: user.cookie })
        expect(me.status).toBe(200)
      }))

    it.effect("CORS preflight echoes an allowed origin with credentials, never *", () =>
      Effect.gen(function*() {
        const res = yield* call("OPTIONS", "/api/v1/auth/me", {
          headers: { origin, "access-control-request-method": "GET" }
        })
        expect(res.headers["access-control-allow-origin"]).toBe(origin)
        expect(res.headers["access-control-allow-credentials"]).toBe("true")
        const foreign = yield* call("OPTIONS", "/api/v1/auth/me", {
          headers: { origin: "https://evil.example", "access-control-request-method": "GET" }
        })
        expect(foreign.headers["access-control-allow-origin"]).toBeUndefined()
      }))
  })

  describe("users lookup", () => {
    it.effect("finds a user by email; 404 otherwise; 401 unauthenticated", () =>
      Effect.gen(function*() {
        const a = yield* registerUser()
        const b = yield* registerUser()
        const found = yield* call("GET", `/api/v1/users/lookup?email=${encodeURIComponent(b.email.toUpperCase())}`, { cookie: a.cookie })
        expect(found.status).toBe(200)
        expect(found.body).toEqual({ id: b.id, email: b.email })
        const missing = yield* call("GET", "/api/v1/users/lookup?email=nobody%40example.com", { cookie: a.cookie })
        expect(missing.status).toBe(404)
        const anon = yield* call("GET", `/api/v1/users/lookup?email=${encodeURIComponent(b.email)}`)
        expect(anon.status).toBe(401)
      }))
  })

  describe("error model", () => {
    it.effect("unknown routes are JSON 404; oversized bodies 413; health and openapi answer", () =>
      Effect.gen(function*() {
        const unknown = yield* call("GET", "/api/v1/does-not-exist")
        expect(unknown.status).toBe(404)
        expect(unknown.body).toEqual({ error: "route not found" })
        const big = yield* call("POST", "/api/v1/auth/register", { rawBody: JSON.stringify({ email: "a@b.co", password: "x".repeat(1024 * 1024 + 10) }) })
        expect(big.status).toBe(413)
        expect(big.body.error).toBeTypeOf("string")
        const health = yield* call("GET", "/api/v1/health")
        expect(health).toMatchObject({ status: 200, body: { status: "ok" } })
        const spec = yield* call("GET", "/api/v1/openapi.json")
        expect(spec.status).toBe(200)
        expect(spec.body.openapi).toBe("3.1.0")
        expect(Object.keys(spec.body.paths)).toContain("/api/v1/auth/register")
        expect(JSON.stringify(spec.body)).not.toContain("HttpApiDecodeError")
      }))
  })
})
