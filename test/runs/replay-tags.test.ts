import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { addEnvironment, addMember, createTrigger, mintApiKey, setupEnvironment, type TestEnv } from "../support/Fixtures.js"
import { call, layer, registerUser } from "../support/TestApp.js"
import { openSse } from "../events/sse.js"

const requestRun = (env: TestEnv, triggerId: string, body?: unknown) =>
  Effect.gen(function*() {
    const res = yield* call("POST", `/api/v1/triggers/${triggerId}/run`, { cookie: env.user.cookie, body })
    expect(res.status, JSON.stringify(res.body)).toBe(201)
    return res.body as { id: string; tags: Array<string>; input: unknown; replayOfRunId: string | null }
  })

const replay = (runId: string, options: { cookie?: string; bearer?: string; body?: unknown; headers?: Record<string, string> }) =>
  call("POST", `/api/v1/runs/${runId}/replay`, options)

withLayer(layer(), { excludeTestServices: true })("replay and tags", (it) => {
  describe("POST /runs/{id}/replay", () => {
    it.effect("a new run of the trigger with the same input and tags, replayOfRunId set, the trigger's current settings; audited", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const trigger = yield* createTrigger(env, { input: { from: "trigger" }, timeoutSeconds: 60, defaultTags: ["team:ci"] })
        const original = yield* requestRun(env, trigger.id, { input: { n: 1 }, tags: ["deploy:42"] })
        expect(original.tags).toEqual(["team:ci", "deploy:42"])
        // A later change of the trigger: the replay takes its settings as they are now.
        expect((yield* call("PATCH", `/api/v1/triggers/${trigger.id}`, { cookie: env.user.cookie, body: { timeoutSeconds: 90 } })).status).toBe(200)

        const operator = yield* addMember(env, "operator")
        const res = yield* replay(original.id, { cookie: operator.cookie })
        expect(res.status).toBe(201)
        expect(res.body).toMatchObject({
          triggerId: trigger.id,
          status: "queued",
          input: { n: 1 },
          tags: ["team:ci", "deploy:42"],
          replayOfRunId: original.id,
          retryOfRunId: null,
          attempt: 1
        })
        expect(res.body.id).not.toBe(original.id)
        const sql = yield* SqlClient.SqlClient
        const [row] = yield* sql<{ timeout_seconds: number; replay_of_run_id: string }>`
          SELECT timeout_seconds, replay_of_run_id FROM runs WHERE id = ${res.body.id}`
        expect(row).toEqual({ timeout_seconds: 90, replay_of_run_id: original.id })
        const audit = yield* sql<{ actor_id: string; metadata: any }>`
          SELECT actor_id, metadata FROM audit_log WHERE action = 'run.requested' AND target_id = ${res.body.id}`
        expect(audit).toHaveLength(1)
        expect(audit[0]!.actor_id).toBe(operator.id)
        expect(audit[0]!.metadata).toMatchObject({ triggerId: trigger.id, replayOfRunId: original.id })
        // The detail shows it too.
        const detail = yield* call("GET", `/api/v1/runs/${res.body.id}`, { cookie: env.user.cookie })
        expect(detail.body.replayOfRunId).toBe(original.id)

        // With an edited input, by an operator key.
        const key = yield* mintApiKey(env, "operator")
        const edited = yield* replay(original.id, { bearer: key, body: { input: { n: 2 } } })
        expect(edited.status).toBe(201)
        expect(edited.body).toMatchObject({ input: { n: 2 }, replayOfRunId: original.id, tags: ["team:ci", "deploy:42"] })

        // An Idempotency-Key makes a repeat answer the first replay.
        const keyed = yield* replay(original.id, { cookie: env.user.cookie, headers: { "idempotency-key": "replay-once" } })
        expect(keyed.status).toBe(201)
        const again = yield* replay(original.id, { cookie: env.user.cookie, headers: { "idempotency-key": "replay-once" } })
        expect(again.status).toBe(200)
        expect(again.body.id).toBe(keyed.body.id)
        const replays = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM runs WHERE replay_of_run_id = ${original.id}`
        expect(replays[0]!.n).toBe(3)
      }))

    it.effect("the trigger's inputSchema applies (400); a viewer is refused (403); strangers and deleted triggers 404", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const trigger = yield* createTrigger(env, {
          input: { n: 1 },
          inputSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] }
        })
        const original = yield* requestRun(env, trigger.id)
        const bad = yield* replay(original.id, { cookie: env.user.cookie, body: { input: { n: "x" } } })
        expect(bad.status).toBe(400)
        expect(bad.body.error).toMatch(/inputSchema/)
        expect(Object.keys(bad.body.details.fieldErrors)).toEqual(["input"])
        const malformed = yield* call("POST", `/api/v1/runs/${original.id}/replay`, { cookie: env.user.cookie, rawBody: "{nope" })
        expect(malformed.status).toBe(400)

        const viewer = yield* addMember(env, "viewer")
        const refused = yield* replay(original.id, { cookie: viewer.cookie })
        expect(refused.status).toBe(403)
        const stranger = yield* registerUser("stranger")
        const hidden = yield* replay(original.id, { cookie: stranger.cookie })
        expect(hidden.status).toBe(404)
        expect(hidden.body).toEqual({ error: "run not found" })
        expect((yield* replay("01900000-0000-7000-8000-000000000000", { cookie: env.user.cookie })).status).toBe(404)
        expect((yield* call("POST", `/api/v1/runs/${original.id}/replay`)).status).toBe(401)

        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE runs SET status = 'succeeded', ended_at = now() WHERE id = ${original.id}`
        expect((yield* call("DELETE", `/api/v1/triggers/${trigger.id}`, { cookie: env.user.cookie })).status).toBe(204)
        const gone = yield* replay(original.id, { cookie: env.user.cookie })
        expect(gone.status).toBe(404)
        expect(gone.body).toEqual({ error: "trigger not found" })
        const made = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM runs WHERE replay_of_run_id = ${original.id}`
        expect(made[0]!.n).toBe(0)
      }))
  })

  describe("tags", () => {
    it.effect("a run request's tags: at most 10 with the trigger's defaults, each ≤ 64 of [A-Za-z0-9_.:-], else 400", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const trigger = yield* createTrigger(env, { defaultTags: ["a", "b"] })
        expect(trigger.defaultTags).toEqual(["a", "b"])
        const run = (body: unknown) => call("POST", `/api/v1/triggers/${trigger.id}/run`, { cookie: env.user.cookie, body })
        const eight = Array.from({ length: 8 }, (_, i) => `t${i}`)
        const ok = yield* run({ tags: [...eight, "a"] })
        expect(ok.status).toBe(201)
        expect(ok.body.tags).toEqual(["a", "b", ...eight])
        const tooMany = yield* run({ tags: [...eight, "c"] })
        expect(tooMany.status).toBe(400)
        expect(tooMany.body.details.fieldErrors.tags[0]).toMatch(/at most 10 tags/)
        const eleven = yield* run({ tags: Array.from({ length: 11 }, (_, i) => `x${i}`) })
        expect(eleven.status).toBe(400)
        expect(eleven.body.details.fieldErrors).toHaveProperty("tags")
        for (const bad of ["has space", "x".repeat(65), "", "ü"]) {
          const res = yield* run({ tags: [bad] })
          expect({ bad, status: res.status }).toEqual({ bad, status: 400 })
          expect(res.body.details.fieldErrors).toHaveProperty("tags")
        }
        expect((yield* run({ tags: ["dup", "dup"] })).status).toBe(400)
        expect((yield* run({ tags: ["A-Z_a.z:0-9", "x".repeat(64)] })).status).toBe(201)
        // A trigger's default tags are checked as well.
        const refused = yield* call("POST", `/api/v1/environments/${env.environmentId}/triggers`, {
          cookie: env.user.cookie,
          body: { name: "bad tags", defaultTags: ["no spaces allowed"] }
        })
        expect(refused.status).toBe(400)
        expect(refused.body.details.fieldErrors).toHaveProperty("defaultTags")
        const patched = yield* call("PATCH", `/api/v1/triggers/${trigger.id}`, { cookie: env.user.cookie, body: { defaultTags: ["c"] } })
        expect(patched.body.defaultTags).toEqual(["c"])
        expect((yield* run({})).body.tags).toEqual(["c"])
      }))

    it.effect("listings filter by tag: the environment's and the trigger's, paged, other environments never", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const other = yield* addEnvironment(env)
        const t1 = yield* createTrigger(env)
        const t2 = yield* createTrigger(env)
        const tOther = yield* createTrigger(other)
        const tagged: Array<string> = []
        for (let i = 0; i < 3; i++) {
          tagged.unshift((yield* requestRun(env, t1.id, { tags: ["deploy:7"] })).id)
          tagged.unshift((yield* requestRun(env, t2.id, { tags: ["deploy:7", "x"] })).id)
          yield* requestRun(env, t1.id, { tags: ["deploy:8"] })
          yield* requestRun(other, tOther.id, { tags: ["deploy:7"] })
        }
        const list = (path: string) => Effect.map(call("GET", path, { cookie: env.user.cookie }), (res) => res.body)
        const all = yield* list(`/api/v1/environments/${env.environmentId}/runs?tag=deploy:7`)
        expect(all.items.map((r: any) => r.id)).toEqual(tagged)
        const first = yield* list(`/api/v1/environments/${env.environmentId}/runs?tag=deploy:7&limit=4`)
        expect(first.items.map((r: any) => r.id)).toEqual(tagged.slice(0, 4))
        const rest = yield* list(`/api/v1/environments/${env.environmentId}/runs?tag=deploy:7&limit=4&cursor=${first.nextCursor}`)
        expect(rest).toEqual({ items: expect.any(Array), nextCursor: null })
        expect(rest.items.map((r: any) => r.id)).toEqual(tagged.slice(4))
        const ofTrigger = yield* list(`/api/v1/triggers/${t2.id}/runs?tag=deploy:7`)
        expect(ofTrigger.items.map((r: any) => r.id)).toEqual(tagged.filter((_, i) => i % 2 === 0))
        const combined = yield* list(`/api/v1/environments/${env.environmentId}/runs?tag=x&status=queued`)
        expect(combined.items).toHaveLength(3)
        expect((yield* list(`/api/v1/environments/${env.environmentId}/runs?tag=none`)).items).toEqual([])
        const bad = yield* call("GET", `/api/v1/environments/${env.environmentId}/runs?tag=no%20space`, { cookie: env.user.cookie })
        expect(bad.status).toBe(400)
        expect(bad.body.details.fieldErrors).toHaveProperty("tag")
      }))

    it.scoped("the live event stream with ?tag= sends only the transitions of runs carrying the tag", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const trigger = yield* createTrigger(env)
        const sse = yield* openSse(`/api/v1/environments/${env.environmentId}/events?tag=watch`, { cookie: env.user.cookie })
        expect(sse.status).toBe(200)
        yield* sse.until((text) => text.startsWith(": connected"), "the first comment line")
        yield* requestRun(env, trigger.id, { tags: ["other"] })
        const watched = yield* requestRun(env, trigger.id, { tags: ["watch"] })
        yield* call("POST", `/api/v1/runs/${watched.id}/cancel`, { cookie: env.user.cookie })
        yield* sse.until(() => sse.runs().some((e) => e.run.status === "cancelled"), "the cancel")
        // Two events (requested, cancelled), both of the tagged run only; each
        // carries the run as it is when sent (docs/events.md), so the first may
        // already read cancelled when the cancel beat its sending.
        const events = sse.runs()
        expect(events.map((e) => e.run.id)).toEqual([watched.id, watched.id])
        expect(events.map((e) => e.run.tags)).toEqual([["watch"], ["watch"]])
        expect(["queued", "cancelled"]).toContain(events[0]!.run.status)
        expect(events[1]!.run.status).toBe("cancelled")
        const bad = yield* call("GET", `/api/v1/environments/${env.environmentId}/events?tag=not%20a%20tag`, { cookie: env.user.cookie })
        expect(bad.status).toBe(400)
      }))
  })
})
