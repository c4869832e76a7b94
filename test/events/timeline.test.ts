import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { uuidv7 } from "../../src/Crypto/Ids.js"
import { addMember, createTrigger, mintApiKey, registerWorker, setupEnvironment, type TestEnv } from "../support/Fixtures.js"
import { call, layer } from "../support/TestApp.js"

type Worker = { readonly workerId: string; readonly token: string }

const requestRun = (env: TestEnv, triggerId: string) =>
  Effect.gen(function*() {
    const res = yield* call("POST", `/api/v1/triggers/${triggerId}/run`, { cookie: env.user.cookie })
    expect(res.status).toBe(201)
    return res.body.id as string
  })

const op = (worker: Worker, runId: string, step: "claim" | "start" | "heartbeat" | "complete", body?: unknown) =>
  call("POST", `/api/v1/workers/${worker.workerId}/runs/${runId}/${step}`, { bearer: worker.token, body })

const timeline = (env: TestEnv, runId: string) => call("GET", `/api/v1/runs/${runId}/events`, { cookie: env.user.cookie })

withLayer(layer(), { excludeTestServices: true })("run timeline over HTTP", (it) => {
  describe("GET /runs/{id}/events", () => {
    it.effect("a full lifecycle: requested, assigned, claimed, started, completed, each with status, time and worker", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const worker = yield* registerWorker(env)
        const trigger = yield* createTrigger(env)
        const runId = yield* requestRun(env, trigger.id)
        expect((yield* op(worker, runId, "claim")).status).toBe(200)
        expect((yield* op(worker, runId, "start")).status).toBe(200)
        // A heartbeat is not a step of the timeline.
        expect((yield* op(worker, runId, "heartbeat")).status).toBe(200)
        const done = yield* op(worker, runId, "complete", { status: "succeeded" })
        expect(done.status).toBe(200)

        const res = yield* timeline(env, runId)
        expect(res.status).toBe(200)
        expect(res.body.items.map((e: any) => [e.reason, e.status, e.workerId])).toEqual([
          ["requested", "queued", null],
          ["assigned", "assigned", worker.workerId],
          ["claimed", "claimed", worker.workerId],
          ["started", "running", worker.workerId],
          ["completed", "succeeded", worker.workerId]
        ])
        expect(Object.keys(res.body.items[0]).sort()).toEqual(["at", "reason", "status", "workerId"])
        const at = res.body.items.map((e: any) => new Date(e.at).getTime())
        expect([...at].sort((a, b) => a - b)).toEqual(at)
        expect(res.body.items[4].at).toBe(done.body.run.endedAt)
        expect(res.body.items[0].at).toBe(done.body.run.createdAt)
      }))

    it.effect("claim=true&start=true: claimed then started; a failed run with a retry: the retry is requested", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const worker = yield* registerWorker(env)
        const trigger = yield* createTrigger(env, { maxRetries: 1 })
        const runId = yield* requestRun(env, trigger.id)
        const polled = yield* call("GET", `/api/v1/workers/${worker.workerId}/poll?claim=true&start=true`, { bearer: worker.token })
        expect(polled.body.runs.map((r: any) => r.id)).toEqual([runId])
        expect((yield* op(worker, runId, "complete", { status: "failed" })).status).toBe(200)
        const res = yield* timeline(env, runId)
        expect(res.body.items.map((e: any) => `${e.reason}:${e.status}`)).toEqual([
          "requested:queued", "assigned:assigned", "claimed:claimed", "started:running", "completed:failed"
        ])
        const runs = yield* call("GET", `/api/v1/triggers/${trigger.id}/runs`, { cookie: env.user.cookie })
        const retry = runs.body.items.find((r: any) => r.retryOfRunId === runId)
        expect(retry).toBeDefined()
        const retried = yield* timeline(env, retry.id)
        expect(retried.body.items[0]).toMatchObject({ reason: "requested", status: "queued", workerId: null })
      }))

    it.effect("viewer+ reads it; another environment's run, an unknown or malformed id: 404 alike", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const trigger = yield* createTrigger(env)
        const runId = yield* requestRun(env, trigger.id)
        const viewer = yield* addMember(env, "viewer")
        const seen = yield* call("GET", `/api/v1/runs/${runId}/events`, { cookie: viewer.cookie })
        expect(seen.status).toBe(200)
        expect(seen.body.items.map((e: any) => e.reason)).toEqual(["requested"])

        const stranger = yield* setupEnvironment("other")
        const foreign = yield* call("GET", `/api/v1/runs/${runId}/events`, { cookie: stranger.user.cookie })
        const unknown = yield* call("GET", `/api/v1/runs/0190a000-0000-7000-8000-000000000000/events`, { cookie: stranger.user.cookie })
        expect(foreign.status).toBe(404)
        expect(foreign.body).toEqual(unknown.body)
        expect(unknown.status).toBe(404)
        expect((yield* call("GET", `/api/v1/runs/not-a-uuid/events`, { cookie: env.user.cookie })).status).toBe(404)
        expect((yield* call("GET", `/api/v1/runs/${runId}/events`, {})).status).toBe(401)
      }))
  })
})

withLayer(layer(), { excludeTestServices: true })("run detail over HTTP", (it) => {
  describe("GET /runs/{id}", () => {
    it.effect("the run object plus triggerName, lineage both ways, the latest delivery record and cancelRequestedAt", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const worker = yield* registerWorker(env)
        const trigger = yield* createTrigger(env, { name: "etl nightly", maxRetries: 1 })
        const runId = yield* requestRun(env, trigger.id)
        const fresh = yield* call("GET", `/api/v1/runs/${runId}`, { cookie: env.user.cookie })
        expect(fresh.status).toBe(200)
        expect(fresh.body).toMatchObject({
          id: runId, triggerId: trigger.id, environmentId: env.environmentId, triggerName: "etl nightly",
          retryOfRunId: null, retriedByRunId: null, delivery: null, cancelRequestedAt: null
        })
        expect((yield* op(worker, runId, "claim")).status).toBe(200)
        const failed = yield* op(worker, runId, "complete", { status: "failed", stderr: "boom" })
        expect(failed.status).toBe(200)

        const sql = yield* SqlClient.SqlClient
        const deliveryId = uuidv7()
        yield* sql`
          INSERT INTO webhook_deliveries (id, run_id, trigger_id, url, outcome, status_code, response_body, attempt_count, error_message)
          VALUES (${deliveryId}, ${runId}, ${trigger.id}, 'https://hooks.example.com/x', 'delivered', 204, '', 2, NULL)`.pipe(Effect.orDie)

        const detail = yield* call("GET", `/api/v1/runs/${runId}`, { cookie: env.user.cookie })
        expect(detail.status).toBe(200)
        const { delivery, output, retriedByRunId, triggerName, ...run } = detail.body
        const { cancelRequestedAt } = detail.body
        // Exactly the run object, as the listings answer it, plus the detail's fields.
        expect({ ...run, cancelRequestedAt: failed.body.run.cancelRequestedAt ?? null }).toEqual({ ...failed.body.run, cancelRequestedAt: failed.body.run.cancelRequestedAt ?? null })
        expect(triggerName).toBe("etl nightly")
        expect(cancelRequestedAt).toBeNull()
        // The structured result is the detail's (docs/run-logs.md); this run reported none.
        expect(output).toBeNull()
        expect(delivery).toMatchObject({
          id: deliveryId, runId, triggerId: trigger.id, url: "https://hooks.example.com/x", outcome: "delivered",
          statusCode: 204, attemptCount: 2, errorMessage: null
        })
        expect(retriedByRunId).toBeTypeOf("string")
        const retry = yield* call("GET", `/api/v1/runs/${retriedByRunId}`, { cookie: env.user.cookie })
        expect(retry.body).toMatchObject({ retryOfRunId: runId, retriedByRunId: null, attempt: 2, delivery: null })
      }))

    it.effect("viewer+; another environment's run, unknown and malformed ids: 404 alike; 401 without credentials", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const trigger = yield* createTrigger(env)
        const runId = yield* requestRun(env, trigger.id)
        const viewerKey = yield* mintApiKey(env, "viewer")
        expect((yield* call("GET", `/api/v1/runs/${runId}`, { bearer: viewerKey })).status).toBe(200)
        const other = yield* setupEnvironment("other")
        const otherKey = yield* mintApiKey(other, "admin")
        const foreign = yield* call("GET", `/api/v1/runs/${runId}`, { bearer: otherKey })
        const unknown = yield* call("GET", `/api/v1/runs/0190a000-0000-7000-8000-000000000000`, { bearer: otherKey })
        expect(foreign.status).toBe(404)
        expect(unknown.status).toBe(404)
        expect(foreign.body).toEqual(unknown.body)
        expect((yield* call("GET", `/api/v1/runs/nope`, { cookie: env.user.cookie })).status).toBe(404)
        expect((yield* call("GET", `/api/v1/runs/${runId}`, {})).status).toBe(401)
      }))
  })
})
