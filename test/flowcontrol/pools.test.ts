import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { addMember, createTrigger, setupEnvironment, type TestEnv } from "../support/Fixtures.js"
import { call, layer } from "../support/TestApp.js"

const poolsPath = (env: TestEnv) => `/api/v1/environments/${env.environmentId}/concurrency-pools`
const triggersPath = (env: TestEnv) => `/api/v1/environments/${env.environmentId}/triggers`

const count = (table: "concurrency_pools" | "triggers", environmentId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql(table)} WHERE environment_id = ${environmentId}`).pipe(
    Effect.map((rows) => Number(rows[0]!.n)),
    Effect.orDie
  )

const auditActions = (environmentId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ action: string }>`SELECT action FROM audit_log WHERE environment_id = ${environmentId}
      AND action LIKE 'concurrency_pool.%' ORDER BY id`).pipe(Effect.map((rows) => rows.map((r) => r.action)), Effect.orDie)

withLayer(layer(), { excludeTestServices: true })("concurrency pools", (it) => {
  describe("CRUD", () => {
    it.effect("create, read, list, rename and re-limit, delete; each write audited", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const created = yield* call("POST", poolsPath(env), { cookie: env.user.cookie, body: { name: "deploys", limit: 3 } })
        expect(created.status).toBe(201)
        expect(created.body).toMatchObject({ environmentId: env.environmentId, name: "deploys", limit: 3, inUse: 0, triggers: 0 })
        const id = created.body.id as string

        const read = yield* call("GET", `${poolsPath(env)}/${id}`, { cookie: env.user.cookie })
        expect(read.status).toBe(200)
        expect(read.body).toEqual(created.body)

        const listed = yield* call("GET", poolsPath(env), { cookie: env.user.cookie })
        expect(listed.status).toBe(200)
        expect(listed.body).toEqual({ items: [created.body], nextCursor: null })

        const patched = yield* call("PATCH", `${poolsPath(env)}/${id}`, { cookie: env.user.cookie, body: { name: "releases", limit: 5 } })
        expect(patched.status).toBe(200)
        expect(patched.body).toMatchObject({ id, name: "releases", limit: 5 })

        const deleted = yield* call("DELETE", `${poolsPath(env)}/${id}`, { cookie: env.user.cookie })
        expect(deleted.status).toBe(204)
        expect((yield* call("GET", `${poolsPath(env)}/${id}`, { cookie: env.user.cookie })).status).toBe(404)
        expect(yield* auditActions(env.environmentId)).toEqual([
          "concurrency_pool.created",
          "concurrency_pool.updated",
          "concurrency_pool.deleted"
        ])
      }))

    it.effect("a limit of 0, negative, over 10,000 or fractional, and a bad name: 400 naming the field, nothing stored", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        for (const limit of [0, -1, 10_001, 1.5, "3"]) {
          const res = yield* call("POST", poolsPath(env), { cookie: env.user.cookie, body: { name: "p", limit } })
          expect(res.status).toBe(400)
          expect(typeof res.body.error).toBe("string")
          expect(Object.keys(res.body.details.fieldErrors)).toEqual(["limit"])
        }
        for (const name of ["", " x", "a/b", "x".repeat(101)]) {
          const res = yield* call("POST", poolsPath(env), { cookie: env.user.cookie, body: { name, limit: 1 } })
          expect(res.status).toBe(400)
          expect(Object.keys(res.body.details.fieldErrors)).toEqual(["name"])
        }
        expect(yield* count("concurrency_pools", env.environmentId)).toBe(0)
      }))

    it.effect("a name taken in the environment: 409 on create and on rename", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        yield* call("POST", poolsPath(env), { cookie: env.user.cookie, body: { name: "a", limit: 1 } })
        const b = yield* call("POST", poolsPath(env), { cookie: env.user.cookie, body: { name: "b", limit: 1 } })
        const again = yield* call("POST", poolsPath(env), { cookie: env.user.cookie, body: { name: "a", limit: 2 } })
        expect(again.status).toBe(409)
        expect(again.body.error).toContain("name")
        const rename = yield* call("PATCH", `${poolsPath(env)}/${b.body.id}`, { cookie: env.user.cookie, body: { name: "a" } })
        expect(rename.status).toBe(409)
        expect(yield* count("concurrency_pools", env.environmentId)).toBe(2)
      }))

    it.effect("viewer reads, viewer and operator may not write (403); a non-member gets 404", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const pool = yield* call("POST", poolsPath(env), { cookie: env.user.cookie, body: { name: "p", limit: 1 } })
        const viewer = yield* addMember(env, "viewer")
        const operator = yield* addMember(env, "operator")
        expect((yield* call("GET", poolsPath(env), { cookie: viewer.cookie })).status).toBe(200)
        expect((yield* call("POST", poolsPath(env), { cookie: operator.cookie, body: { name: "q", limit: 1 } })).status).toBe(403)
        expect((yield* call("PATCH", `${poolsPath(env)}/${pool.body.id}`, { cookie: viewer.cookie, body: { limit: 2 } })).status).toBe(403)
        expect((yield* call("DELETE", `${poolsPath(env)}/${pool.body.id}`, { cookie: operator.cookie })).status).toBe(403)
        const stranger = yield* setupEnvironment("other")
        expect((yield* call("GET", poolsPath(env), { cookie: stranger.user.cookie })).status).toBe(404)
        expect((yield* call("GET", `${poolsPath(env)}/${pool.body.id}`, { cookie: stranger.user.cookie })).status).toBe(404)
      }))

    it.effect("deleting a pool a trigger uses: 409, and the pool stays; once the trigger leaves it, 204", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const pool = yield* call("POST", poolsPath(env), { cookie: env.user.cookie, body: { name: "shared", limit: 2 } })
        const trigger = yield* createTrigger(env, { concurrency: { pool: "shared" } })
        expect(trigger.concurrency).toEqual({ limit: null, perKey: null, keyFrom: null, pool: "shared", inUse: 0 })
        expect((yield* call("GET", `${poolsPath(env)}/${pool.body.id}`, { cookie: env.user.cookie })).body.triggers).toBe(1)
        const refused = yield* call("DELETE", `${poolsPath(env)}/${pool.body.id}`, { cookie: env.user.cookie })
        expect(refused.status).toBe(409)
        expect(refused.body.error).toContain("used by 1 trigger")
        expect(yield* count("concurrency_pools", env.environmentId)).toBe(1)
        const left = yield* call("PATCH", `/api/v1/triggers/${trigger.id}`, { cookie: env.user.cookie, body: { concurrency: null } })
        expect(left.status).toBe(200)
        expect(left.body.concurrency).toBeNull()
        expect((yield* call("DELETE", `${poolsPath(env)}/${pool.body.id}`, { cookie: env.user.cookie })).status).toBe(204)
      }))
  })

  describe("a trigger's concurrency", () => {
    it.effect("create and PATCH store it; reads answer it with the places in use", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const trigger = yield* createTrigger(env, { concurrency: { limit: 2, perKey: 1, keyFrom: "tenant" } })
        expect(trigger.concurrency).toEqual({ limit: 2, perKey: 1, keyFrom: "tenant", pool: null, inUse: 0 })
        const read = yield* call("GET", `/api/v1/triggers/${trigger.id}`, { cookie: env.user.cookie })
        expect(read.body.concurrency).toEqual(trigger.concurrency)
        const patched = yield* call("PATCH", `/api/v1/triggers/${trigger.id}`, { cookie: env.user.cookie, body: { concurrency: { limit: 5 } } })
        expect(patched.status).toBe(200)
        expect(patched.body.concurrency).toEqual({ limit: 5, perKey: null, keyFrom: null, pool: null, inUse: 0 })
        const plain = yield* createTrigger(env)
        expect(plain.concurrency).toBeNull()
      }))

    it.effect("a limit of 0, negative or over 10,000, and an unknown pool: 400 naming concurrency, nothing stored", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const bad = [{ limit: 0 }, { limit: -3 }, { perKey: 10_001 }, { perKey: 0 }, { keyFrom: "" }, { pool: "nope" }, { pool: "a b" }]
        for (const concurrency of bad) {
          const res = yield* call("POST", triggersPath(env), { cookie: env.user.cookie, body: { name: "t", concurrency } })
          expect(res.status).toBe(400)
          expect(Object.keys(res.body.details.fieldErrors)).toEqual(["concurrency"])
        }
        expect(yield* count("triggers", env.environmentId)).toBe(0)
        const trigger = yield* createTrigger(env, { concurrency: { limit: 1 } })
        const res = yield* call("PATCH", `/api/v1/triggers/${trigger.id}`, { cookie: env.user.cookie, body: { concurrency: { pool: "nope" } } })
        expect(res.status).toBe(400)
        expect(res.body.details.fieldErrors.concurrency[0]).toContain("nope")
        const read = yield* call("GET", `/api/v1/triggers/${trigger.id}`, { cookie: env.user.cookie })
        expect(read.body.concurrency).toMatchObject({ limit: 1, pool: null })
      }))
  })
})
