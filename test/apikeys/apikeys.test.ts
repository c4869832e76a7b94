import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { sha256 } from "../../src/Crypto/Tokens.js"
import { call, layer, registerUser } from "../support/TestApp.js"
import { addMember, collectPages, createEnvironment, mintKey, newEnv } from "../tenancy/helpers.js"

const keysPath = (envId: string) => `/api/v1/environments/${envId}/api-keys`

withLayer(layer(), { excludeTestServices: true })("api keys", (it) => {
  describe("create", () => {
    it.effect("pwk: 201 {id, name, prefix, role, token, createdAt}, role defaults to operator, only the hash is stored", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const env = yield* newEnv
        const res = yield* call("POST", keysPath(env.environmentId), { cookie: env.owner.cookie, body: { name: "ci", prefix: "pwk" } })
        expect(res.status).toBe(201)
        expect(Object.keys(res.body).sort()).toEqual(["createdAt", "id", "name", "prefix", "role", "token"])
        expect(res.body).toMatchObject({ name: "ci", prefix: "pwk", role: "operator" })
        // 32 random bytes in base64url: 256 bits, well over the contract's 128.
        expect(res.body.token).toMatch(/^pwk_[A-Za-z0-9_-]{43}$/)
        const rows = yield* sql<{ token_hash: string; token_start: string }>`SELECT token_hash, token_start FROM api_keys WHERE id = ${res.body.id}`
        expect(rows[0]!.token_hash).toBe(sha256(res.body.token))
        expect(rows[0]!.token_start).toBe(res.body.token.slice(0, 8))
        const everything = JSON.stringify(yield* sql`SELECT * FROM api_keys`)
        expect(everything).not.toContain(res.body.token)
      }).pipe(Effect.orDie))

    it.effect("wrk: a registration token with role null, not usable as an API key", () =>
      Effect.gen(function*() {
        const env = yield* newEnv
        const res = yield* call("POST", keysPath(env.environmentId), { cookie: env.owner.cookie, body: { name: "worker-1", prefix: "wrk" } })
        expect(res.status).toBe(201)
        expect(res.body.role).toBeNull()
        expect(res.body.prefix).toBe("wrk")
        expect(res.body.token).toMatch(/^wrk_[A-Za-z0-9_-]{43}$/)
        const asBearer = yield* call("GET", `/api/v1/environments/${env.environmentId}/members`, { bearer: res.body.token })
        expect(asBearer.status).toBe(401)
        const listed = yield* call("GET", keysPath(env.environmentId), { cookie: env.owner.cookie })
        expect(listed.body.items[0]).toMatchObject({ id: res.body.id, prefix: "wrk", role: null, consumedAt: null })
      }))

    it.effect("400 for another prefix, a bad role, or a missing name, naming every field", () =>
      Effect.gen(function*() {
        const env = yield* newEnv
        const path = keysPath(env.environmentId)
        const prefix = yield* call("POST", path, { cookie: env.owner.cookie, body: { name: "x", prefix: "abc" } })
        expect(prefix.status).toBe(400)
        expect(Object.keys(prefix.body.details.fieldErrors)).toEqual(["prefix"])
        const wkt = yield* call("POST", path, { cookie: env.owner.cookie, body: { name: "x", prefix: "wkt" } })
        expect(wkt.status).toBe(400)
        const all = yield* call("POST", path, { cookie: env.owner.cookie, body: { prefix: "pwk", role: "owner" } })
        expect(all.status).toBe(400)
        expect(Object.keys(all.body.details.fieldErrors).sort()).toEqual(["name", "role"])
        const listed = yield* call("GET", path, { cookie: env.owner.cookie })
        expect(listed.body.items).toEqual([])
      }))

    it.effect("admin+ creates; operators and viewers get 403, strangers 404, no credentials 401", () =>
      Effect.gen(function*() {
        const env = yield* newEnv
        const admin = yield* addMember(env, "admin")
        const operator = yield* addMember(env, "operator")
        const stranger = yield* registerUser()
        const path = keysPath(env.environmentId)
        const body = { name: "k", prefix: "pwk" }
        expect((yield* call("POST", path, { cookie: admin.cookie, body })).status).toBe(201)
        expect((yield* call("POST", path, { cookie: operator.cookie, body })).status).toBe(403)
        expect((yield* call("POST", path, { cookie: stranger.cookie, body })).status).toBe(404)
        expect((yield* call("POST", path, { body })).status).toBe(401)
        expect((yield* call("POST", path, { bearer: "pwk_not-a-real-key", body })).status).toBe(401)
        expect((yield* call("POST", "/api/v1/environments/not-a-uuid/api-keys", { cookie: admin.cookie, body })).status).toBe(404)
      }))
  })

  describe("using a pwk key", () => {
    it.effect("acts with its role in its own environment only; lastUsedAt is set once used", () =>
      Effect.gen(function*() {
        const env = yield* newEnv
        const otherEnv = yield* createEnvironment(env.owner, env.workspaceId, "other")
        const viewer = yield* mintKey(env, "viewer")
        const operator = yield* mintKey(env, "operator")
        const admin = yield* mintKey(env, "admin")
        const members = `/api/v1/environments/${env.environmentId}/members`

        const before = yield* call("GET", keysPath(env.environmentId), { cookie: env.owner.cookie })
        expect(before.body.items.find((k: any) => k.id === viewer.id).lastUsedAt).toBeNull()

        expect((yield* call("GET", members, { bearer: viewer.token })).status).toBe(200)
        const upper = `/api/v1/environments/${env.environmentId.toUpperCase()}/members`
        expect((yield* call("GET", upper, { bearer: viewer.token })).status).toBe(200)
        const after = yield* call("GET", keysPath(env.environmentId), { cookie: env.owner.cookie })
        const used = after.body.items.find((k: any) => k.id === viewer.id)
        expect(Date.parse(used.lastUsedAt)).toBeGreaterThanOrEqual(Date.parse(used.createdAt))

        // Role limits: viewer and operator keys cannot mutate admin+ resources.
        const newUser = yield* registerUser()
        expect((yield* call("POST", members, { bearer: operator.token, body: { userId: newUser.id, role: "viewer" } })).status).toBe(403)
        expect((yield* call("POST", keysPath(env.environmentId), { bearer: viewer.token, body: { name: "x", prefix: "pwk" } })).status).toBe(403)
        expect((yield* call("GET", `/api/v1/environments/${env.environmentId}/audit-log`, { bearer: operator.token })).status).toBe(403)
        // An admin key may add members, but never grant owner.
        expect((yield* call("POST", members, { bearer: admin.token, body: { userId: newUser.id, role: "owner" } })).status).toBe(403)
        expect((yield* call("POST", members, { bearer: admin.token, body: { userId: newUser.id, role: "admin" } })).status).toBe(201)

        // Confined to its environment: every other environment is 404, even for the admin key.
        expect((yield* call("GET", `/api/v1/environments/${otherEnv}/members`, { bearer: admin.token })).status).toBe(404)
        expect((yield* call("GET", keysPath(otherEnv), { bearer: admin.token })).status).toBe(404)
        expect((yield* call("PATCH", `/api/v1/environments/${otherEnv}`, { bearer: admin.token, body: { name: "x" } })).status).toBe(404)
      }))

    it.effect("an admin key mints keys up to admin and wrk tokens; the audit record names the key as actor", () =>
      Effect.gen(function*() {
        const env = yield* newEnv
        const admin = yield* mintKey(env, "admin")
        const made = yield* call("POST", keysPath(env.environmentId), { bearer: admin.token, body: { name: "child", prefix: "pwk", role: "admin" } })
        expect(made.status).toBe(201)
        const wrk = yield* call("POST", keysPath(env.environmentId), { bearer: admin.token, body: { name: "reg", prefix: "wrk" } })
        expect(wrk.status).toBe(201)
        const audit = yield* call("GET", `/api/v1/environments/${env.environmentId}/audit-log?targetId=${made.body.id}`, { cookie: env.owner.cookie })
        expect(audit.body.items).toEqual([expect.objectContaining({
          action: "api_key.created",
          actorType: "api_key",
          actorId: admin.id,
          targetType: "api_key",
          metadata: { name: "child", prefix: "pwk", role: "admin" }
        })])
      }))
  })

  describe("list and delete", () => {
    it.effect("the listing shows {id, name, prefix, role, tokenStart, createdAt, lastUsedAt, consumedAt}, never the token", () =>
      Effect.gen(function*() {
        const env = yield* newEnv
        const viewer = yield* addMember(env, "viewer")
        const keys = [yield* mintKey(env, "viewer"), yield* mintKey(env, "operator"), yield* mintKey(env, "admin")]
        const res = yield* call("GET", keysPath(env.environmentId), { cookie: viewer.cookie })
        expect(res.status).toBe(200)
        expect(res.body.items.map((k: any) => k.id)).toEqual(keys.map((k) => k.id).reverse())
        for (const item of res.body.items) {
          expect(Object.keys(item).sort()).toEqual(["consumedAt", "createdAt", "id", "lastUsedAt", "name", "prefix", "role", "tokenStart"])
        }
        const text = JSON.stringify(res.body)
        for (const key of keys) {
          expect(text).not.toContain(key.token)
          expect(text).toContain(key.token.slice(0, 8))
        }
        const pages = yield* collectPages(keysPath(env.environmentId), { cookie: env.owner.cookie }, 1)
        expect(pages.map((k) => k.id)).toEqual(keys.map((k) => k.id).reverse())
        const bad = yield* call("GET", `${keysPath(env.environmentId)}?cursor=%%%`, { cookie: env.owner.cookie })
        expect(bad.status).toBe(400)
      }))

    it.effect("DELETE: 204, the key answers 401 at once, a second delete is 404; audited without the token", () =>
      Effect.gen(function*() {
        const env = yield* newEnv
        const viewerMember = yield* addMember(env, "viewer")
        const key = yield* mintKey(env, "operator")
        const members = `/api/v1/environments/${env.environmentId}/members`
        expect((yield* call("GET", members, { bearer: key.token })).status).toBe(200)
        const path = `${keysPath(env.environmentId)}/${key.id}`
        expect((yield* call("DELETE", path, { cookie: viewerMember.cookie })).status).toBe(403)
        const del = yield* call("DELETE", path, { cookie: env.owner.cookie })
        expect(del.status).toBe(204)
        const after = yield* call("GET", members, { bearer: key.token })
        expect(after.status).toBe(401)
        expect((yield* call("DELETE", path, { cookie: env.owner.cookie })).status).toBe(404)
        expect((yield* call("DELETE", `${keysPath(env.environmentId)}/nope`, { cookie: env.owner.cookie })).status).toBe(404)
        const audit = yield* call("GET", `/api/v1/environments/${env.environmentId}/audit-log?actions=api_key.created,api_key.deleted`, { cookie: env.owner.cookie })
        expect(audit.body.items.map((r: any) => r.action)).toEqual(["api_key.deleted", "api_key.created"])
        expect(JSON.stringify(audit.body)).not.toContain(key.token)
        expect(JSON.stringify(audit.body)).not.toContain(sha256(key.token))
      }))

    it.effect("a key of another environment cannot be deleted through this one", () =>
      Effect.gen(function*() {
        const env = yield* newEnv
        const other = yield* newEnv
        const foreign = yield* mintKey(other, "viewer")
        const res = yield* call("DELETE", `${keysPath(env.environmentId)}/${foreign.id}`, { cookie: env.owner.cookie })
        expect(res.status).toBe(404)
        expect((yield* call("GET", `/api/v1/environments/${other.environmentId}/members`, { bearer: foreign.token })).status).toBe(200)
      }))
  })
})
