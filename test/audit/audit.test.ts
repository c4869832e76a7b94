import { describe, expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { call, layer, registerUser } from "../support/TestApp.js"
import { addMember, collectPages, mintKey, newEnv } from "../tenancy/helpers.js"

const auditPath = (envId: string) => `/api/v1/environments/${envId}/audit-log`

withLayer(layer(), { excludeTestServices: true })("audit log", (it) => {
  describe("access", () => {
    it.effect("admin+ reads (cookie or admin key); operator 403, stranger 404, anonymous 401", () =>
      Effect.gen(function*() {
        const env = yield* newEnv
        const admin = yield* addMember(env, "admin")
        const operator = yield* addMember(env, "operator")
        const stranger = yield* registerUser()
        const key = yield* mintKey(env, "admin")
        const path = auditPath(env.environmentId)
        expect((yield* call("GET", path, { cookie: admin.cookie })).status).toBe(200)
        expect((yield* call("GET", path, { bearer: key.token })).status).toBe(200)
        const forbidden = yield* call("GET", path, { cookie: operator.cookie })
        expect(forbidden.status).toBe(403)
        expect(forbidden.body.error).toBeTypeOf("string")
        expect((yield* call("GET", path, { cookie: stranger.cookie })).status).toBe(404)
        expect((yield* call("GET", path)).status).toBe(401)
        expect((yield* call("GET", auditPath("not-a-uuid"), { cookie: admin.cookie })).status).toBe(404)
      }))
  })

  describe("records and filters", () => {
    it.effect("records have the documented fields, newest first", () =>
      Effect.gen(function*() {
        const env = yield* newEnv
        const member = yield* addMember(env, "viewer")
        const res = yield* call("GET", auditPath(env.environmentId), { cookie: env.owner.cookie })
        expect(res.status).toBe(200)
        expect(res.body.nextCursor).toBeNull()
        expect(res.body.items).toHaveLength(1)
        const record = res.body.items[0]
        expect(Object.keys(record).sort()).toEqual([
          "action", "actorId", "actorType", "createdAt", "environmentId", "id", "metadata", "targetId", "targetType"
        ])
        expect(record).toMatchObject({
          environmentId: env.environmentId,
          actorType: "user",
          actorId: env.owner.id,
          action: "member.added",
          targetType: "user",
          targetId: member.id,
          metadata: { role: "viewer" }
        })
        expect(new Date(record.createdAt).toISOString()).toBe(record.createdAt)
      }))

    it.effect("action, actions and targetId filter; unknown names match nothing; a bad targetId is 400", () =>
      Effect.gen(function*() {
        const env = yield* newEnv
        const path = auditPath(env.environmentId)
        const a = yield* addMember(env, "viewer")
        const b = yield* addMember(env, "operator")
        yield* call("PATCH", `/api/v1/environments/${env.environmentId}/members/${a.id}`, { cookie: env.owner.cookie, body: { role: "admin" } })
        const key = yield* mintKey(env, "viewer")
        yield* call("PATCH", `/api/v1/environments/${env.environmentId}`, { cookie: env.owner.cookie, body: { name: "renamed" } })
        const actionsOf = (query: string) =>
          Effect.map(call("GET", `${path}?${query}`, { cookie: env.owner.cookie }), (res) => {
            expect(res.status).toBe(200)
            return res.body.items.map((r: any) => r.action as string)
          })
        expect(yield* actionsOf("action=member.added")).toEqual(["member.added", "member.added"])
        expect(yield* actionsOf("actions=member.role_changed,api_key.created")).toEqual(["api_key.created", "member.role_changed"])
        expect(yield* actionsOf("action=environment.updated&actions=api_key.created")).toEqual(["environment.updated", "api_key.created"])
        expect(yield* actionsOf(`targetId=${a.id}`)).toEqual(["member.role_changed", "member.added"])
        expect(yield* actionsOf(`targetId=${b.id}&action=member.role_changed`)).toEqual([])
        expect(yield* actionsOf(`targetId=${key.id}`)).toEqual(["api_key.created"])
        expect(yield* actionsOf("action=no.such.action")).toEqual([])
        const bad = yield* call("GET", `${path}?targetId=nope`, { cookie: env.owner.cookie })
        expect(bad.status).toBe(400)
        expect(Object.keys(bad.body.details.fieldErrors)).toEqual(["targetId"])
      }))

    it.effect("records stay in their environment", () =>
      Effect.gen(function*() {
        const env = yield* newEnv
        const other = yield* newEnv
        yield* addMember(other, "viewer")
        const res = yield* call("GET", auditPath(env.environmentId), { cookie: env.owner.cookie })
        expect(res.body.items).toEqual([])
      }))
  })

  describe("pagination", () => {
    it.effect("following nextCursor yields every record exactly once, even with inserts in between", () =>
      Effect.gen(function*() {
        const env = yield* newEnv
        const path = auditPath(env.environmentId)
        for (let i = 0; i < 5; i++) yield* addMember(env, "viewer")
        const first = yield* call("GET", `${path}?limit=2`, { cookie: env.owner.cookie })
        expect(first.body.items).toHaveLength(2)
        expect(first.body.nextCursor).toBeTypeOf("string")
        // New records are newer than every cursor position: they never shift the remaining pages.
        yield* addMember(env, "viewer")
        const seen = [...first.body.items]
        let cursor: string | null = first.body.nextCursor
        while (cursor !== null) {
          const res = yield* call("GET", `${path}?limit=2&cursor=${cursor}`, { cookie: env.owner.cookie })
          expect(res.status).toBe(200)
          seen.push(...res.body.items)
          cursor = res.body.nextCursor
        }
        expect(seen).toHaveLength(5)
        expect(new Set(seen.map((r) => r.id)).size).toBe(5)
        const ids = seen.map((r) => r.id)
        expect(ids).toEqual([...ids].sort().reverse())
        const all = yield* collectPages(path, { cookie: env.owner.cookie }, 4)
        expect(all).toHaveLength(6)
      }))

    it.effect("400 for a bad cursor, limit or action name", () =>
      Effect.gen(function*() {
        const env = yield* newEnv
        const path = auditPath(env.environmentId)
        for (const q of ["cursor=abc", "cursor=", "limit=0", "limit=201", "limit=-1", "limit=1.5", "limit=x", "action=a%00b", "actions=x,%00"]) {
          const res = yield* call("GET", `${path}?${q}`, { cookie: env.owner.cookie })
          expect(res.status, q).toBe(400)
          expect(res.body.error).toBeTypeOf("string")
        }
        const max = yield* call("GET", `${path}?limit=200`, { cookie: env.owner.cookie })
        expect(max.status).toBe(200)
      }))
  })
})
