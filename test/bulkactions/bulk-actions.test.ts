import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { uuidv7 } from "../../src/Crypto/Ids.js"
import { addEnvironment, addMember, createTrigger, insertRun, mintApiKey, registerWorker, setupEnvironment, type TestEnv } from "../support/Fixtures.js"
import { call, layer, registerUser } from "../support/TestApp.js"
import { eventually, receiver } from "../webhooks/support.js"

type Worker = { readonly workerId: string; readonly token: string }

const requestRun = (env: TestEnv, triggerId: string, body?: unknown) =>
  Effect.gen(function*() {
    const res = yield* call("POST", `/api/v1/triggers/${triggerId}/run`, { cookie: env.user.cookie, body })
    expect(res.status, JSON.stringify(res.body)).toBe(201)
    return res.body.id as string
  })

const create = (env: TestEnv, body: unknown, options: { cookie?: string; bearer?: string; headers?: Record<string, string> } = {}) =>
  call("POST", `/api/v1/environments/${env.environmentId}/bulk-actions`, {
    ...(options.bearer === undefined ? { cookie: options.cookie ?? env.user.cookie } : { bearer: options.bearer }),
    body,
    ...(options.headers === undefined ? {} : { headers: options.headers })
  })

/** Waits until the bulk action has ended; answers it. */
const endOf = (env: TestEnv, id: string) =>
  eventually(
    "the bulk action's end",
    Effect.map(call("GET", `/api/v1/bulk-actions/${id}`, { cookie: env.user.cookie }), (res) => res.body),
    (body) => body.state === "completed" || body.state === "cancelled",
    60_000
  )

const op = (worker: Worker, runId: string, step: "claim" | "start" | "complete", body?: unknown) =>
  call("POST", `/api/v1/workers/${worker.workerId}/runs/${runId}/${step}`, { bearer: worker.token, body })

const auditOf = (id: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ action: string; actor_type: string; actor_id: string; metadata: any }>`
      SELECT action, actor_type, actor_id, metadata FROM audit_log WHERE target_id = ${id} ORDER BY id`).pipe(Effect.orDie)

withLayer(layer({ webhookAllowPrivateNetworks: true, cancelGraceSeconds: 30 }), { excludeTestServices: true })("bulk actions", (it) => {
  describe("POST /environments/{envId}/bulk-actions", () => {
    it.scoped("cancel by filter: open runs cancelled, ended ones skipped (already ended), counts and state; audited once with filter and counts", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const trigger = yield* createTrigger(env)
        const other = yield* createTrigger(env, { name: "other" })
        const open = [yield* requestRun(env, trigger.id, { tags: ["bad-deploy"] }), yield* requestRun(env, trigger.id, { tags: ["bad-deploy"] })]
        const done = yield* requestRun(env, trigger.id, { tags: ["bad-deploy"] })
        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE runs SET status = 'succeeded', ended_at = now() WHERE id = ${done}`
        const untagged = yield* requestRun(env, trigger.id)
        const elsewhere = yield* requestRun(env, other.id, { tags: ["bad-deploy"] })

        const operator = yield* addMember(env, "operator")
        const res = yield* create(env, { action: "cancel", filter: { tag: "bad-deploy", triggerId: trigger.id } }, { cookie: operator.cookie })
        expect(res.status).toBe(201)
        expect(res.body).toMatchObject({
          environmentId: env.environmentId,
          action: "cancel",
          filter: { tag: "bad-deploy", triggerId: trigger.id },
          runIdCount: null,
          matched: 3
        })
        const result = yield* endOf(env, res.body.id)
        expect(result).toMatchObject({
          state: "completed",
          matched: 3,
          done: 2,
          skipped: 1,
          skippedReasons: { alreadyEnded: 1, notVisible: 0 },
          failed: 0,
          lastError: null
        })
        expect(result.endedAt).not.toBeNull()
        const statuses = yield* sql<{ id: string; status: string }>`
          SELECT id, status FROM runs WHERE id IN (${open[0]!}, ${open[1]!}, ${done}, ${untagged}, ${elsewhere}) ORDER BY id`
        expect(Object.fromEntries(statuses.map((r) => [r.id, r.status]))).toEqual({
          [open[0]!]: "cancelled",
          [open[1]!]: "cancelled",
          [done]: "succeeded",
          [untagged]: "queued",
          [elsewhere]: "queued"
        })
        // Each cancel is audited as a single one is (in the creator's name); the bulk action once, when it ended.
        const cancels = yield* sql<{ actor_id: string }>`
          SELECT actor_id FROM audit_log WHERE action = 'run.cancelled' AND target_id IN (${open[0]!}, ${open[1]!})`
        expect(cancels.map((a) => a.actor_id)).toEqual([operator.id, operator.id])
        const audit = yield* auditOf(res.body.id)
        expect(audit).toEqual([{
          action: "bulk_action.completed",
          actor_type: "user",
          actor_id: operator.id,
          metadata: {
            action: "cancel",
            filter: { tag: "bad-deploy", triggerId: trigger.id },
            runIds: null,
            matched: 3,
            done: 2,
            skipped: { alreadyEnded: 1, notVisible: 0 },
            failed: 0
          }
        }])
        // Listed in the environment, newest first.
        const listed = yield* call("GET", `/api/v1/environments/${env.environmentId}/bulk-actions`, { cookie: env.user.cookie })
        expect(listed.body.items.map((b: any) => b.id)).toEqual([res.body.id])
      }))

    it.scoped("replay by ids: one new run per run, replayOfRunId set; ids of another environment skipped as not visible; Idempotency-Key", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const foreign = yield* addEnvironment(env, "foreign")
        const trigger = yield* createTrigger(env, { defaultTags: ["nightly"] })
        const foreignTrigger = yield* createTrigger(foreign)
        const failed = [
          yield* insertRun(trigger.id, env.environmentId, { status: "failed" }),
          yield* insertRun(trigger.id, env.environmentId, { status: "failed" })
        ]
        const foreignRun = yield* insertRun(foreignTrigger.id, foreign.environmentId, { status: "failed" })
        const key = yield* mintApiKey(env, "operator")
        const body = { action: "replay", runIds: [...failed, foreignRun, failed[0]!] }
        const res = yield* create(env, body, { bearer: key, headers: { "idempotency-key": "replay-batch-1" } })
        expect(res.status).toBe(201)
        expect(res.body).toMatchObject({ action: "replay", filter: null, runIdCount: 3, matched: 3 })
        const repeat = yield* create(env, body, { bearer: key, headers: { "idempotency-key": "replay-batch-1" } })
        expect(repeat.status).toBe(200)
        expect(repeat.body.id).toBe(res.body.id)
        const result = yield* endOf(env, res.body.id)
        expect(result).toMatchObject({ state: "completed", matched: 3, done: 2, skipped: 1, skippedReasons: { alreadyEnded: 0, notVisible: 1 }, failed: 0 })
        const sql = yield* SqlClient.SqlClient
        const replays = yield* sql<{ replay_of_run_id: string; status: string; trigger_id: string; tags: Array<string> }>`
          SELECT replay_of_run_id, status, trigger_id, tags FROM runs WHERE replay_of_run_id IS NOT NULL ORDER BY replay_of_run_id`
        expect(replays.filter((r) => r.trigger_id === trigger.id || r.trigger_id === foreignTrigger.id)).toEqual(
          [...failed].sort().map((id) => ({ replay_of_run_id: id, status: "queued", trigger_id: trigger.id, tags: ["nightly"] }))
        )
        const audit = yield* auditOf(res.body.id)
        expect(audit).toHaveLength(1)
        expect(audit[0]).toMatchObject({ action: "bulk_action.completed", actor_type: "api_key", metadata: { runIds: 3, done: 2 } })
      }))

    it.effect("a viewer is refused; an empty filter, no ids or both are 400; another environment's trigger matches nothing", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const foreign = yield* addEnvironment(env, "foreign")
        const foreignTrigger = yield* createTrigger(foreign)
        yield* requestRun(foreign, foreignTrigger.id)

        const viewer = yield* addMember(env, "viewer")
        expect((yield* create(env, { action: "cancel", filter: { status: "queued" } }, { cookie: viewer.cookie })).status).toBe(403)
        const viewerKey = yield* mintApiKey(env, "viewer")
        expect((yield* create(env, { action: "cancel", filter: { status: "queued" } }, { bearer: viewerKey })).status).toBe(403)
        const stranger = yield* registerUser("stranger")
        expect((yield* create(env, { action: "cancel", filter: { status: "queued" } }, { cookie: stranger.cookie })).status).toBe(404)

        const empty = yield* create(env, { action: "cancel", filter: {} })
        expect(empty.status).toBe(400)
        expect(empty.body).toEqual({
          error: "validation failed",
          details: { fieldErrors: {}, formErrors: ["a bulk action needs at least one condition or ids"] }
        })
        const none = yield* create(env, { action: "replay" })
        expect(none.status).toBe(400)
        expect(none.body.details.formErrors).toEqual(["a bulk action needs at least one condition or ids"])
        expect((yield* create(env, { action: "replay", runIds: [] })).status).toBe(400)
        const both = yield* create(env, { action: "cancel", filter: { status: "queued" }, runIds: ["01900000-0000-7000-8000-000000000000"] })
        expect(both.status).toBe(400)
        const bad = yield* create(env, { action: "delete", filter: { status: "nope", tag: "no spaces", from: "yesterday" } })
        expect(bad.status).toBe(400)
        expect(Object.keys(bad.body.details.fieldErrors).sort()).toEqual(["action", "filter"])

        // The preview counts as creating would, and creates nothing.
        const preview = (body: unknown, cookie = env.user.cookie) =>
          call("POST", `/api/v1/environments/${env.environmentId}/bulk-actions/preview`, { cookie, body })
        expect((yield* preview({ action: "cancel", filter: { triggerId: foreignTrigger.id } })).body).toEqual({ matched: 0 })
        const own = yield* createTrigger(env)
        yield* requestRun(env, own.id)
        yield* requestRun(env, own.id)
        expect((yield* preview({ action: "replay", filter: { triggerId: own.id, status: "queued" } })).body).toEqual({ matched: 2 })
        expect((yield* preview({ action: "replay", runIds: ["01900000-0000-7000-8000-000000000000"] })).body).toEqual({ matched: 1 })
        expect((yield* preview({ action: "cancel", filter: {} })).status).toBe(400)
        expect((yield* preview({ action: "cancel", filter: { status: "queued" } }, viewer.cookie)).status).toBe(403)
        const sql0 = yield* SqlClient.SqlClient
        expect((yield* sql0<{ n: number }>`SELECT count(*)::int AS n FROM bulk_actions WHERE environment_id = ${env.environmentId}`)[0]!.n).toBe(0)

        const res = yield* create(env, { action: "cancel", filter: { triggerId: foreignTrigger.id } })
        expect(res.status).toBe(201)
        expect(res.body.matched).toBe(0)
        const result = yield* endOf(env, res.body.id)
        expect(result).toMatchObject({ state: "completed", matched: 0, done: 0, skipped: 0 })
        const sql = yield* SqlClient.SqlClient
        const stillQueued = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM runs WHERE trigger_id = ${foreignTrigger.id} AND status = 'queued'`
        expect(stillQueued[0]!.n).toBe(1)
        // Reading it: viewer yes, stranger no.
        expect((yield* call("GET", `/api/v1/bulk-actions/${res.body.id}`, { cookie: viewer.cookie })).status).toBe(200)
        expect((yield* call("GET", `/api/v1/bulk-actions/${res.body.id}`, { cookie: stranger.cookie })).status).toBe(404)
        // An ended bulk action cannot be cancelled.
        const late = yield* call("POST", `/api/v1/bulk-actions/${res.body.id}/cancel`, { cookie: env.user.cookie })
        expect(late.status).toBe(409)
        expect(late.body).toEqual({ error: "bulk action is completed" })
        expect((yield* call("POST", `/api/v1/bulk-actions/${res.body.id}/cancel`, { cookie: viewer.cookie })).status).toBe(403)
      }))

    it.scoped("a bulk cancel racing workers completing the same runs: each run ends once (one timeline end, one webhook)", () =>
      Effect.gen(function*() {
        const rx = yield* receiver
        const env = yield* setupEnvironment()
        const worker = yield* registerWorker(env)
        const trigger = yield* createTrigger(env, { webhookUrl: rx.url("/race"), heartbeatTimeoutSeconds: 300 })
        const runs: Array<string> = []
        for (let i = 0; i < 12; i++) runs.push(yield* requestRun(env, trigger.id, { tags: ["race"] }))
        // Half are with the worker (running), half still queued or assigned.
        for (const runId of runs.slice(0, 6)) {
          const claim = yield* op(worker, runId, "claim")
          if (claim.status === 200) yield* op(worker, runId, "start")
        }
        const completing = Effect.forEach(runs, (runId) => op(worker, runId, "complete", { status: "succeeded" }), { concurrency: 4 })
        const [res] = yield* Effect.all([create(env, { action: "cancel", filter: { tag: "race" } }), completing], { concurrency: 2 })
        expect(res.status).toBe(201)
        const result = yield* endOf(env, res.body.id)
        expect(result.state).toBe("completed")
        expect(result.done + result.skipped + result.failed).toBe(result.matched)
        // Runs still with the worker after a cancel request: it completes them, recorded cancelled.
        yield* Effect.forEach(runs, (runId) => op(worker, runId, "complete", { status: "succeeded" }), { discard: true })
        const sql = yield* SqlClient.SqlClient
        const rows = yield* eventually(
          "every run ended",
          sql<{ id: string; status: string; ended_at: Date | null }>`SELECT id, status, ended_at FROM runs WHERE trigger_id = ${trigger.id}`,
          (rows) => rows.length === 12 && rows.every((r) => r.ended_at !== null)
        )
        expect(rows.every((r) => r.status === "succeeded" || r.status === "cancelled")).toBe(true)
        const ends = yield* sql<{ run_id: string; n: number }>`
          SELECT run_id, count(*)::int AS n FROM run_events
          WHERE run_id IN (SELECT id FROM runs WHERE trigger_id = ${trigger.id}) AND status IN ('succeeded', 'cancelled', 'failed', 'timed_out')
          GROUP BY run_id`
        expect(ends).toHaveLength(12)
        expect(ends.every((e) => e.n === 1)).toBe(true)
        yield* eventually("one webhook per run", Effect.sync(() => rx.received("/race").length), (n) => n >= 12)
        yield* Effect.sleep("500 millis")
        const posts = rx.received("/race").map((r) => JSON.parse(r.raw.toString("utf8")) as { runId: string; status: string })
        expect(posts).toHaveLength(12)
        expect(new Set(posts.map((p) => p.runId)).size).toBe(12)
        for (const post of posts) expect(post.status).toBe(rows.find((r) => r.id === post.runId)!.status)
      }))

    it.effect("cancelling a bulk action another instance holds: asked to stop; whoever resumes it ends it cancelled, acting on nothing", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const trigger = yield* createTrigger(env)
        const runId = yield* requestRun(env, trigger.id)
        const sql = yield* SqlClient.SqlClient
        // Held by an instance that stopped answering: its lease runs for another minute.
        const id = uuidv7()
        yield* sql`
          INSERT INTO bulk_actions (id, environment_id, action, run_ids_given, actor_type, actor_id, state, matched, created_at,
            lease_owner, lease_until, started_at)
          VALUES (${id}, ${env.environmentId}, 'cancel', 1, 'user', ${env.user.id}, 'running', 1, now(),
            ${uuidv7()}, now() + interval '1 minute', now())`
        yield* sql`INSERT INTO bulk_action_runs (bulk_action_id, run_id) VALUES (${id}, ${runId})`
        const asked = yield* call("POST", `/api/v1/bulk-actions/${id}/cancel`, { cookie: env.user.cookie })
        expect(asked.status).toBe(200)
        expect(asked.body).toMatchObject({ state: "running", done: 0 })
        expect(asked.body.cancelRequestedAt).not.toBeNull()
        // That instance is gone: its lease expires, and this one takes the bulk action over.
        yield* sql`UPDATE bulk_actions SET lease_until = now() - interval '1 second' WHERE id = ${id}`
        const result = yield* endOf(env, id)
        expect(result).toMatchObject({ state: "cancelled", done: 0, matched: 1 })
        const [run] = yield* sql<{ status: string }>`SELECT status FROM runs WHERE id = ${runId}`
        expect(run!.status).toBe("queued")
        const audit = yield* auditOf(id)
        expect(audit.map((a) => [a.action, a.metadata.done])).toEqual([["bulk_action.cancelled", 0]])
        const again = yield* call("POST", `/api/v1/bulk-actions/${id}/cancel`, { cookie: env.user.cookie })
        expect(again.status).toBe(409)
      }))

    it.effect("a batch done again after its progress was lost (as a crash loses it): no run acted on twice, each counted once", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const trigger = yield* createTrigger(env)
        const sql = yield* SqlClient.SqlClient
        const open = [yield* requestRun(env, trigger.id), yield* requestRun(env, trigger.id), yield* requestRun(env, trigger.id)]
        const ended = yield* insertRun(trigger.id, env.environmentId, { status: "succeeded" })
        const failed = [
          yield* insertRun(trigger.id, env.environmentId, { status: "failed" }),
          yield* insertRun(trigger.id, env.environmentId, { status: "failed" })
        ]
        const cancel = yield* create(env, { action: "cancel", runIds: [...open, ended] })
        const replay = yield* create(env, { action: "replay", runIds: failed })
        const counts = (b: any) => [b.state, b.done, b.skippedReasons.alreadyEnded, b.skippedReasons.notVisible, b.failed]
        expect(counts(yield* endOf(env, cancel.body.id))).toEqual(["completed", 3, 1, 0, 0])
        expect(counts(yield* endOf(env, replay.body.id))).toEqual(["completed", 2, 0, 0, 0])

        // Both as if their instance died after acting on the batch and before recording it: nothing recorded, the lease stale.
        for (const id of [cancel.body.id, replay.body.id]) {
          yield* sql`DELETE FROM audit_log WHERE target_id = ${id}`
          yield* sql`
            UPDATE bulk_actions SET ended_at = NULL, state = 'running', cursor = NULL, done = 0, skipped_already_ended = 0,
              skipped_not_visible = 0, failed = 0, lease_owner = ${uuidv7()}, lease_until = now() - interval '1 second'
            WHERE id = ${id}`
        }
        expect(counts(yield* endOf(env, cancel.body.id))).toEqual(["completed", 3, 1, 0, 0])
        expect(counts(yield* endOf(env, replay.body.id))).toEqual(["completed", 2, 0, 0, 0])
        const cancels = yield* sql<{ target_id: string; metadata: any }>`
          SELECT target_id, metadata FROM audit_log WHERE action = 'run.cancelled' AND environment_id = ${env.environmentId}`
        expect(cancels.map((a) => a.target_id).sort()).toEqual([...open].sort())
        expect(cancels.every((a) => a.metadata.bulkActionId === cancel.body.id)).toBe(true)
        const replays = yield* sql<{ replay_of_run_id: string }>`
          SELECT replay_of_run_id FROM runs WHERE replay_of_run_id IS NOT NULL AND trigger_id = ${trigger.id}`
        expect(replays.map((r) => r.replay_of_run_id).sort()).toEqual([...failed].sort())
        for (const id of [cancel.body.id, replay.body.id]) expect(yield* auditOf(id)).toHaveLength(1)
      }))
  })
})
