import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { uuidv7 } from "../../src/Crypto/Ids.js"
import { call, registerUser } from "../support/TestApp.js"
import { layer } from "../support/TestApp.js"
import { addMember, collectPages, createEnvironment, createWorkspace, mintKey, newEnv } from "./helpers.js"

const missingId = "01900000-0000-7000-8000-000000000000"

withLayer(layer(), { excludeTestServices: true })("tenancy", (it) => {
  describe("workspaces", () => {
    it.effect("201 with {id, name, ownerId, createdAt}; the creator owns it", () =>
      Effect.gen(function*() {
        const user = yield* registerUser()
        const res = yield* call("POST", "/api/v1/workspaces", { cookie: user.cookie, body: { name: "  Acme  " } })
        expect(res.status).toBe(201)
        expect(Object.keys(res.body).sort()).toEqual(["createdAt", "id", "name", "ownerId"])
        expect(res.body.name).toBe("Acme")
        expect(res.body.ownerId).toBe(user.id)
        expect(new Date(res.body.createdAt).toISOString()).toBe(res.body.createdAt)
      }))

    it.effect("400 for a blank, missing, over-long or NUL-containing name", () =>
      Effect.gen(function*() {
        const user = yield* registerUser()
        for (const body of [{ name: "   " }, {}, { name: "x".repeat(201) }, { name: 42 }, { name: "a\u0000b" }]) {
          const res = yield* call("POST", "/api/v1/workspaces", { cookie: user.cookie, body })
          expect(res.status).toBe(400)
          expect(Object.keys(res.body.details.fieldErrors)).toEqual(["name"])
        }
      }))

    it.effect("401 without a cookie and for a pwk key (workspace routes are cookie-only)", () =>
      Effect.gen(function*() {
        const env = yield* newEnv
        const key = yield* mintKey(env, "admin")
        const anon = yield* call("GET", "/api/v1/workspaces")
        expect(anon.status).toBe(401)
        expect(anon.body.error).toBeTypeOf("string")
        const byKey = yield* call("POST", "/api/v1/workspaces", { bearer: key.token, body: { name: "x" } })
        expect(byKey.status).toBe(401)
        const envsByKey = yield* call("GET", `/api/v1/workspaces/${env.workspaceId}/environments`, { bearer: key.token })
        expect(envsByKey.status).toBe(401)
      }))

    it.effect("403 for a cookie mutation without an allowed Origin", () =>
      Effect.gen(function*() {
        const user = yield* registerUser()
        const res = yield* call("POST", "/api/v1/workspaces", { cookie: user.cookie, body: { name: "x" }, noOrigin: true })
        expect(res.status).toBe(403)
      }))

    it.effect("GET lists owned workspaces and those with a membership, never others", () =>
      Effect.gen(function*() {
        const env = yield* newEnv
        const other = yield* newEnv
        const member = yield* addMember(other, "viewer")
        const ownOnly = yield* createWorkspace(member, "member's own")
        const res = yield* call("GET", "/api/v1/workspaces", { cookie: member.cookie })
        expect(res.status).toBe(200)
        expect(res.body.nextCursor).toBeNull()
        expect(res.body.items.map((w: any) => w.id)).toEqual([ownOnly, other.workspaceId])
        const ownerView = yield* call("GET", "/api/v1/workspaces", { cookie: env.owner.cookie })
        expect(ownerView.body.items.map((w: any) => w.id)).toEqual([env.workspaceId])
      }))

    it.effect("cursor pagination yields every workspace once, newest first; bad limit and cursor are 400", () =>
      Effect.gen(function*() {
        const user = yield* registerUser()
        const ids: Array<string> = []
        for (let i = 0; i < 5; i++) ids.push(yield* createWorkspace(user, `ws-${i}`))
        const items = yield* collectPages("/api/v1/workspaces", { cookie: user.cookie }, 2)
        expect(items.map((w) => w.id)).toEqual([...ids].reverse())
        for (const q of ["limit=0", "limit=201", "limit=abc", "cursor=not-a-cursor"]) {
          const res = yield* call("GET", `/api/v1/workspaces?${q}`, { cookie: user.cookie })
          expect(res.status).toBe(400)
          expect(res.body.details.fieldErrors).toHaveProperty(q.split("=")[0]!)
        }
      }))
  })

  describe("environments", () => {
    it.effect("the workspace owner creates one and becomes its owner member", () =>
      Effect.gen(function*() {
        const user = yield* registerUser()
        const ws = yield* createWorkspace(user)
        const res = yield* call("POST", `/api/v1/workspaces/${ws}/environments`, { cookie: user.cookie, body: { name: "staging" } })
        expect(res.status).toBe(201)
        expect(Object.keys(res.body).sort()).toEqual(["createdAt", "id", "name", "updatedAt", "workspaceId"])
        expect(res.body.workspaceId).toBe(ws)
        const members = yield* call("GET", `/api/v1/environments/${res.body.id}/members`, { cookie: user.cookie })
        expect(members.body.items).toEqual([
          { userId: user.id, email: user.email, role: "owner", createdAt: expect.any(String) }
        ])
      }))

    it.effect("403 for a member who does not own the workspace; 404 for a stranger or a malformed id", () =>
      Effect.gen(function*() {
        const env = yield* newEnv
        const admin = yield* addMember(env, "admin")
        const stranger = yield* registerUser()
        const path = `/api/v1/workspaces/${env.workspaceId}/environments`
        const byAdmin = yield* call("POST", path, { cookie: admin.cookie, body: { name: "x" } })
        expect(byAdmin.status).toBe(403)
        expect(byAdmin.body.error).toBeTypeOf("string")
        const byStranger = yield* call("POST", path, { cookie: stranger.cookie, body: { name: "x" } })
        expect(byStranger.status).toBe(404)
        const listByStranger = yield* call("GET", path, { cookie: stranger.cookie })
        expect(listByStranger.status).toBe(404)
        const malformed = yield* call("GET", "/api/v1/workspaces/not-a-uuid/environments", { cookie: env.owner.cookie })
        expect(malformed.status).toBe(404)
        const missing = yield* call("GET", `/api/v1/workspaces/${missingId}/environments`, { cookie: env.owner.cookie })
        expect(missing.status).toBe(404)
      }))

    it.effect("GET lists only the environments the caller is a member of", () =>
      Effect.gen(function*() {
        const env = yield* newEnv
        const second = yield* createEnvironment(env.owner, env.workspaceId, "second")
        const viewer = yield* addMember(env, "viewer")
        const path = `/api/v1/workspaces/${env.workspaceId}/environments`
        const owner = yield* call("GET", path, { cookie: env.owner.cookie })
        expect(owner.body.items.map((e: any) => e.id)).toEqual([second, env.environmentId])
        const byViewer = yield* call("GET", path, { cookie: viewer.cookie })
        expect(byViewer.status).toBe(200)
        expect(byViewer.body).toEqual({ items: [expect.objectContaining({ id: env.environmentId })], nextCursor: null })
      }))

    it.effect("PATCH renames (admin+), is audited, and refuses lower roles and strangers", () =>
      Effect.gen(function*() {
        const env = yield* newEnv
        const admin = yield* addMember(env, "admin")
        const operator = yield* addMember(env, "operator")
        const stranger = yield* registerUser()
        const path = `/api/v1/environments/${env.environmentId}`
        const ok = yield* call("PATCH", path, { cookie: admin.cookie, body: { name: "renamed" } })
        expect(ok.status).toBe(200)
        expect(ok.body.name).toBe("renamed")
        expect(ok.body.id).toBe(env.environmentId)
        expect(Date.parse(ok.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(ok.body.createdAt))
        expect((yield* call("PATCH", path, { cookie: operator.cookie, body: { name: "x" } })).status).toBe(403)
        expect((yield* call("PATCH", path, { cookie: stranger.cookie, body: { name: "x" } })).status).toBe(404)
        expect((yield* call("PATCH", path, { cookie: admin.cookie, body: { name: "" } })).status).toBe(400)
        expect((yield* call("PATCH", "/api/v1/environments/nope", { cookie: admin.cookie, body: { name: "x" } })).status).toBe(404)
        const audit = yield* call("GET", `${path}/audit-log?action=environment.updated`, { cookie: env.owner.cookie })
        expect(audit.body.items).toHaveLength(1)
        expect(audit.body.items[0]).toMatchObject({
          action: "environment.updated",
          actorType: "user",
          actorId: admin.id,
          targetType: "environment",
          targetId: env.environmentId,
          metadata: { name: "renamed", previousName: "production" }
        })
      }))

    it.effect("DELETE is owner-only, 409 while a run is active, then removes everything", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const env = yield* newEnv
        const admin = yield* addMember(env, "admin")
        const key = yield* mintKey(env, "admin")
        const path = `/api/v1/environments/${env.environmentId}`
        expect((yield* call("DELETE", path, { cookie: admin.cookie })).status).toBe(403)
        expect((yield* call("DELETE", path, { bearer: key.token })).status).toBe(403)

        const triggerId = uuidv7()
        const runId = uuidv7()
        yield* sql`INSERT INTO triggers (id, environment_id, name, timeout_seconds, heartbeat_timeout_seconds, max_retries)
                   VALUES (${triggerId}, ${env.environmentId}, 't', 60, 30, 0)`
        yield* sql`INSERT INTO runs (id, trigger_id, environment_id, status, timeout_seconds, heartbeat_timeout_seconds, max_retries)
                   VALUES (${runId}, ${triggerId}, ${env.environmentId}, 'running', 60, 30, 0)`
        const busy = yield* call("DELETE", path, { cookie: env.owner.cookie })
        expect(busy.status).toBe(409)
        expect(busy.body.error).toBeTypeOf("string")

        yield* sql`UPDATE runs SET status = 'succeeded' WHERE id = ${runId}`
        const gone = yield* call("DELETE", path, { cookie: env.owner.cookie })
        expect(gone.status).toBe(204)
        expect((yield* call("GET", `${path}/members`, { cookie: env.owner.cookie })).status).toBe(404)
        expect((yield* call("GET", `${path}/members`, { bearer: key.token })).status).toBe(401)
        const left = yield* sql<{ n: number }>`
          SELECT (SELECT count(*) FROM triggers WHERE environment_id = ${env.environmentId})
               + (SELECT count(*) FROM members WHERE environment_id = ${env.environmentId})
               + (SELECT count(*) FROM api_keys WHERE environment_id = ${env.environmentId})::int AS n`
        expect(Number(left[0]!.n)).toBe(0)
        expect((yield* call("DELETE", path, { cookie: env.owner.cookie })).status).toBe(404)
      }).pipe(Effect.orDie))
  })

  describe("members", () => {
    it.effect("viewer+ lists; admin+ adds with {userId, email, role, createdAt}; 409 twice; 404 unknown user; 400 bad role", () =>
      Effect.gen(function*() {
        const env = yield* newEnv
        const viewer = yield* addMember(env, "viewer")
        const admin = yield* addMember(env, "admin")
        const newcomer = yield* registerUser()
        const path = `/api/v1/environments/${env.environmentId}/members`
        const list = yield* call("GET", path, { cookie: viewer.cookie })
        expect(list.status).toBe(200)
        expect(list.body.items.map((m: any) => m.userId).sort()).toEqual([env.owner.id, viewer.id, admin.id].sort())

        const byViewer = yield* call("POST", path, { cookie: viewer.cookie, body: { userId: newcomer.id, role: "viewer" } })
        expect(byViewer.status).toBe(403)
        const added = yield* call("POST", path, { cookie: admin.cookie, body: { userId: newcomer.id, role: "operator" } })
        expect(added.status).toBe(201)
        expect(added.body).toEqual({ userId: newcomer.id, email: newcomer.email, role: "operator", createdAt: expect.any(String) })
        const again = yield* call("POST", path, { cookie: admin.cookie, body: { userId: newcomer.id, role: "viewer" } })
        expect(again.status).toBe(409)
        const unknown = yield* call("POST", path, { cookie: admin.cookie, body: { userId: missingId, role: "viewer" } })
        expect(unknown.status).toBe(404)
        const bad = yield* call("POST", path, { cookie: admin.cookie, body: { userId: "nope", role: "king" } })
        expect(bad.status).toBe(400)
        expect(Object.keys(bad.body.details.fieldErrors).sort()).toEqual(["role", "userId"])
      }))

    it.effect("a non-member gets 404 on every member route", () =>
      Effect.gen(function*() {
        const env = yield* newEnv
        const stranger = yield* registerUser()
        const path = `/api/v1/environments/${env.environmentId}/members`
        expect((yield* call("GET", path, { cookie: stranger.cookie })).status).toBe(404)
        expect((yield* call("POST", path, { cookie: stranger.cookie, body: { userId: stranger.id, role: "viewer" } })).status).toBe(404)
        expect((yield* call("PATCH", `${path}/${env.owner.id}`, { cookie: stranger.cookie, body: { role: "viewer" } })).status).toBe(404)
        expect((yield* call("DELETE", `${path}/${env.owner.id}`, { cookie: stranger.cookie })).status).toBe(404)
        expect((yield* call("GET", path)).status).toBe(401)
      }))

    it.effect("only an owner grants, changes or removes the owner role", () =>
      Effect.gen(function*() {
        const env = yield* newEnv
        const admin = yield* addMember(env, "admin")
        const user = yield* registerUser()
        const path = `/api/v1/environments/${env.environmentId}/members`
        const grant = yield* call("POST", path, { cookie: admin.cookie, body: { userId: user.id, role: "owner" } })
        expect(grant.status).toBe(403)
        const promote = yield* call("PATCH", `${path}/${admin.id}`, { cookie: admin.cookie, body: { role: "owner" } })
        expect(promote.status).toBe(403)
        const demote = yield* call("PATCH", `${path}/${env.owner.id}`, { cookie: admin.cookie, body: { role: "viewer" } })
        expect(demote.status).toBe(403)
        const remove = yield* call("DELETE", `${path}/${env.owner.id}`, { cookie: admin.cookie })
        expect(remove.status).toBe(403)
        const byOwner = yield* call("PATCH", `${path}/${admin.id}`, { cookie: env.owner.cookie, body: { role: "owner" } })
        expect(byOwner.status).toBe(200)
        expect(byOwner.body.role).toBe("owner")
      }))

    it.effect("demoting or removing the last owner is 409; with two owners it works", () =>
      Effect.gen(function*() {
        const env = yield* newEnv
        const path = `/api/v1/environments/${env.environmentId}/members`
        const demote = yield* call("PATCH", `${path}/${env.owner.id}`, { cookie: env.owner.cookie, body: { role: "admin" } })
        expect(demote.status).toBe(409)
        expect(demote.body.error).toBeTypeOf("string")
        const remove = yield* call("DELETE", `${path}/${env.owner.id}`, { cookie: env.owner.cookie })
        expect(remove.status).toBe(409)
        const second = yield* addMember(env, "owner")
        const ok = yield* call("PATCH", `${path}/${env.owner.id}`, { cookie: second.cookie, body: { role: "admin" } })
        expect(ok.status).toBe(200)
        expect(ok.body.role).toBe("admin")
        const last = yield* call("DELETE", `${path}/${second.id}`, { cookie: second.cookie })
        expect(last.status).toBe(409)
      }))

    it.effect("two owners stepping down at once: exactly one succeeds, one owner remains (race-free check)", () =>
      Effect.gen(function*() {
        const env = yield* newEnv
        const second = yield* addMember(env, "owner")
        const path = `/api/v1/environments/${env.environmentId}/members`
        const results = yield* Effect.all([
          call("PATCH", `${path}/${env.owner.id}`, { cookie: env.owner.cookie, body: { role: "viewer" } }),
          call("DELETE", `${path}/${second.id}`, { cookie: second.cookie })
        ], { concurrency: "unbounded" })
        const statuses = results.map((r) => r.status)
        expect(statuses.filter((s) => s === 409)).toHaveLength(1)
        expect(statuses.filter((s) => s === 200 || s === 204)).toHaveLength(1)
        const still = statuses[0] === 409 ? env.owner : second
        const list = yield* call("GET", path, { cookie: still.cookie })
        expect(list.body.items.filter((m: any) => m.role === "owner").map((m: any) => m.userId)).toEqual([still.id])
      }))

    it.effect("PATCH and DELETE answer 404 for a non-member; removal is audited and revokes access", () =>
      Effect.gen(function*() {
        const env = yield* newEnv
        const operator = yield* addMember(env, "operator")
        const stranger = yield* registerUser()
        const path = `/api/v1/environments/${env.environmentId}/members`
        expect((yield* call("PATCH", `${path}/${stranger.id}`, { cookie: env.owner.cookie, body: { role: "viewer" } })).status).toBe(404)
        expect((yield* call("DELETE", `${path}/not-a-uuid`, { cookie: env.owner.cookie })).status).toBe(404)
        // UUIDs are case-insensitive: an upper-case spelling names the same member.
        const changed = yield* call("PATCH", `${path}/${operator.id.toUpperCase()}`, { cookie: env.owner.cookie, body: { role: "viewer" } })
        expect(changed.body).toMatchObject({ userId: operator.id, role: "viewer" })
        const removed = yield* call("DELETE", `${path}/${operator.id}`, { cookie: env.owner.cookie })
        expect(removed.status).toBe(204)
        expect((yield* call("GET", path, { cookie: operator.cookie })).status).toBe(404)
        const audit = yield* call("GET", `/api/v1/environments/${env.environmentId}/audit-log?targetId=${operator.id}`, { cookie: env.owner.cookie })
        expect(audit.body.items.map((r: any) => [r.action, r.metadata])).toEqual([
          ["member.removed", { role: "viewer" }],
          ["member.role_changed", { from: "operator", to: "viewer" }],
          ["member.added", { role: "operator" }]
        ])
      }))

    it.effect("member listing paginates every member exactly once", () =>
      Effect.gen(function*() {
        const env = yield* newEnv
        const ids = [env.owner.id]
        for (let i = 0; i < 4; i++) ids.push((yield* addMember(env, "viewer")).id)
        const items = yield* collectPages(`/api/v1/environments/${env.environmentId}/members`, { cookie: env.owner.cookie }, 2)
        expect(items.map((m) => m.userId)).toEqual([...ids].reverse())
        const bad = yield* call("GET", `/api/v1/environments/${env.environmentId}/members?cursor=zzz`, { cookie: env.owner.cookie })
        expect(bad.status).toBe(400)
      }))
  })
})
