import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { createTrigger, mintApiKey, registerWorker, setupEnvironment, type TestEnv } from "../support/Fixtures.js"
import { call, layer } from "../support/TestApp.js"

/**
 * No place leaks: a trigger with `limit: 1`, two runs requested; the first
 * is placed and then ends (or goes back to queued) in one of the ways a run
 * can; the second must then be placed. One test per way. Real time (claim
 * timeout 1 s, the shortest execution and heartbeat timeouts; expiry has a
 * layer of its own, below, so the claim timeout cannot hand the run back first).
 */

type Worker = { readonly workerId: string; readonly token: string }

const setup = (fields: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const env = yield* setupEnvironment()
    const workers = [yield* registerWorker(env, "w0"), yield* registerWorker(env, "w1")]
    const trigger = yield* createTrigger(env, { concurrency: { limit: 1 }, ...fields })
    const key = yield* mintApiKey(env, "operator")
    const request = Effect.map(call("POST", `/api/v1/triggers/${trigger.id}/run`, { bearer: key }), (res) => {
      expect(res.status).toBe(201)
      return res.body.id as string
    })
    const first = yield* request
    const second = yield* request
    return { env, workers, trigger, key, first, second }
  })

const runOf = (env: TestEnv, runId: string) =>
  Effect.map(call("GET", `/api/v1/runs/${runId}`, { cookie: env.user.cookie }), (res) => res.body)

const poll = (worker: Worker, query = "wait=0") =>
  Effect.map(call("GET", `/api/v1/workers/${worker.workerId}/poll?${query}`, { bearer: worker.token }), (res) => {
    expect(res.status).toBe(200)
    return res.body.runs as Array<{ id: string }>
  })

const step = (worker: Worker, runId: string, what: string, body?: unknown) =>
  Effect.map(call("POST", `/api/v1/workers/${worker.workerId}/runs/${runId}/${what}`, { bearer: worker.token, body }), (res) => {
    expect(res.status, `${what} ${JSON.stringify(res.body)}`).toBe(200)
    return res.body
  })

/** The worker the run was placed on (the first run is placed by the request's own pass). */
const holder = (env: TestEnv, workers: ReadonlyArray<Worker>, runId: string) =>
  Effect.gen(function*() {
    const run = yield* runOf(env, runId)
    expect(run.status).toBe("assigned")
    return workers.find((w) => w.workerId === run.workerId)!
  })

/** Polls with the workers (each poll is an assignment pass) until `runId` is placed; fails after `seconds`. */
const placedWithin = (env: TestEnv, workers: ReadonlyArray<Worker>, runId: string, seconds: number) =>
  Effect.gen(function*() {
    const until = Date.now() + seconds * 1000
    while (Date.now() < until) {
      for (const worker of workers) yield* poll(worker)
      const run = yield* runOf(env, runId)
      if (run.status !== "queued") return run
      // Held by the limit until the place is freed; between the freeing end
      // and the next assignment pass no reason holds and the answer is null
      // (docs/flow-control.md), never another reason.
      if (run.waitReason !== null) expect(run.waitReason).toBe("trigger_limit")
      yield* Effect.sleep("200 millis")
    }
    return yield* Effect.dieMessage(`run ${runId} still queued after ${seconds} s`)
  })

withLayer(layer({ claimTimeoutSeconds: 1 }), { excludeTestServices: true })("flow control: every end frees the place", (it) => {
  describe("a run holding the trigger's one place", () => {
    it.effect("completes (succeeded)", () =>
      Effect.gen(function*() {
        const { env, first, second, workers } = yield* setup()
        const w = yield* holder(env, workers, first)
        expect((yield* runOf(env, second)).waitReason).toBe("trigger_limit")
        yield* step(w, first, "claim")
        yield* step(w, first, "complete", { status: "succeeded" })
        expect((yield* placedWithin(env, workers, second, 10)).status).toBe("assigned")
      }))

    it.effect("fails and is retried: the place goes to the oldest waiting run, the retry waits its turn", () =>
      Effect.gen(function*() {
        const { env, first, second, workers } = yield* setup({ maxRetries: 1 })
        const w = yield* holder(env, workers, first)
        yield* step(w, first, "claim")
        yield* step(w, first, "complete", { status: "failed" })
        const placed = yield* placedWithin(env, workers, second, 10)
        expect(placed.status).toBe("assigned")
        const sql = yield* SqlClient.SqlClient
        const [retry] = yield* sql<{ id: string }>`SELECT id FROM runs WHERE retry_of_run_id = ${first}`.pipe(Effect.orDie)
        expect((yield* runOf(env, retry!.id))).toMatchObject({ status: "queued", waitReason: "trigger_limit" })
      }))

    it.effect("is cancelled while assigned, and while running (the worker acknowledges)", () =>
      Effect.gen(function*() {
        const { env, first, key, second, trigger, workers } = yield* setup()
        yield* holder(env, workers, first)
        expect((yield* call("POST", `/api/v1/runs/${first}/cancel`, { bearer: key })).body.status).toBe("cancelled")
        const placed = yield* placedWithin(env, workers, second, 10)
        const w = workers.find((x) => x.workerId === placed.workerId)!
        yield* step(w, second, "claim")
        yield* step(w, second, "start")
        const third = (yield* call("POST", `/api/v1/triggers/${trigger.id}/run`, { bearer: key })).body.id as string
        expect((yield* call("POST", `/api/v1/runs/${second}/cancel`, { bearer: key })).body.cancelRequestedAt).not.toBeNull()
        // Still holding the place until the worker stops it.
        expect((yield* runOf(env, third)).waitReason).toBe("trigger_limit")
        expect((yield* step(w, second, "complete", { status: "failed" })).run.status).toBe("cancelled")
        expect((yield* placedWithin(env, workers, third, 10)).status).toBe("assigned")
      }))

    it.effect("is not claimed in time (claim timeout: back to queued, then placed again in its turn)", () =>
      Effect.gen(function*() {
        const { env, first, second, workers } = yield* setup()
        yield* holder(env, workers, first)
        // Nobody claims: after 1 s the first run goes back to queued; it is older, so it takes the place again.
        const again = yield* Effect.gen(function*() {
          for (let i = 0; i < 50; i++) {
            yield* Effect.sleep("200 millis")
            const events = yield* call("GET", `/api/v1/runs/${first}/events`, { cookie: env.user.cookie })
            if ((events.body.items as Array<any>).some((e) => e.reason === "claim_timeout")) return true
          }
          return false
        })
        expect(again).toBe(true)
        expect((yield* runOf(env, second)).status).toBe("queued")
      }))

    it.effect("times out running (execution timeout)", () =>
      Effect.gen(function*() {
        const { env, first, second, workers } = yield* setup({ timeoutSeconds: 1 })
        const w = yield* holder(env, workers, first)
        yield* step(w, first, "claim")
        yield* step(w, first, "start")
        expect((yield* placedWithin(env, workers, second, 15)).status).toBe("assigned")
        expect((yield* runOf(env, first)).status).toBe("timed_out")
      }))

    it.effect("times out without heartbeats (heartbeat timeout)", () =>
      Effect.gen(function*() {
        const { env, first, second, workers } = yield* setup({ heartbeatTimeoutSeconds: 5 })
        const w = yield* holder(env, workers, first)
        yield* step(w, first, "claim")
        expect((yield* placedWithin(env, workers, second, 20)).status).toBe("assigned")
        expect((yield* runOf(env, first))).toMatchObject({ status: "timed_out", faultClass: "infra" })
      }))

    it.effect("is on a worker that is revoked", () =>
      Effect.gen(function*() {
        const { env, first, second, workers } = yield* setup()
        const w = yield* holder(env, workers, first)
        yield* step(w, first, "claim")
        const revoked = yield* call("DELETE", `/api/v1/workspaces/${env.workspaceId}/workers/${w.workerId}`, { cookie: env.user.cookie })
        expect(revoked.status).toBe(204)
        const others = workers.filter((x) => x !== w)
        expect((yield* placedWithin(env, others, second, 10)).workerId).toBe(others[0]!.workerId)
        expect((yield* runOf(env, first)).status).toBe("timed_out")
      }))
  })

  describe("bad input stores nothing", () => {
    it.effect("a concurrencyKey over 200 characters or empty; a keyFrom field that is not a string or a number", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const trigger = yield* createTrigger(env, { concurrency: { perKey: 1, keyFrom: "tenant" } })
        const key = yield* mintApiKey(env, "operator")
        const run = (body: unknown) => call("POST", `/api/v1/triggers/${trigger.id}/run`, { bearer: key, body })
        for (const concurrencyKey of ["x".repeat(201), "", 5]) {
          const res = yield* run({ concurrencyKey })
          expect(res.status).toBe(400)
          expect(Object.keys(res.body.details.fieldErrors)).toEqual(["concurrencyKey"])
        }
        for (const tenant of [{ a: 1 }, true, "y".repeat(201)]) {
          const res = yield* run({ input: { tenant } })
          expect(res.status).toBe(400)
          expect(res.body.details.fieldErrors.input[0]).toContain("tenant")
        }
        const sql = yield* SqlClient.SqlClient
        const [count] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM runs WHERE trigger_id = ${trigger.id}`.pipe(Effect.orDie)
        expect(count!.n).toBe(0)
        // The key read from the input; a request's own key wins over it.
        expect((yield* run({ input: { tenant: 42 } })).body.concurrencyKey).toBe("42")
        expect((yield* run({ input: { tenant: "acme" }, concurrencyKey: "own" })).body.concurrencyKey).toBe("own")
      }))
  })
})

// Expiry ends a run not yet claimed: `queued` (which holds no place) or
// `assigned` (which does). The claim timeout stays at its default 30 s here,
// so the assigned run is ended by its time-to-live, not handed back to the queue.
withLayer(layer(), { excludeTestServices: true })("flow control: expiry frees the place", (it) => {
  it.effect("an assigned run whose time-to-live passes unclaimed ends expired; the next queued run takes the place", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const workers = [yield* registerWorker(env, "w0"), yield* registerWorker(env, "w1")]
      const trigger = yield* createTrigger(env, { concurrency: { limit: 1 } })
      const key = yield* mintApiKey(env, "operator")
      const request = (body: unknown) =>
        Effect.map(call("POST", `/api/v1/triggers/${trigger.id}/run`, { bearer: key, body }), (res) => {
          expect(res.status).toBe(201)
          return res.body.id as string
        })
      // Only the first run has a time-to-live (the request's own): the second never expires.
      const first = yield* request({ ttlSeconds: 1 })
      const second = yield* request({})
      yield* holder(env, workers, first)
      expect((yield* runOf(env, second)).waitReason).toBe("trigger_limit")
      // Nobody claims the first run: it expires while assigned, and its place goes to the second.
      expect((yield* placedWithin(env, workers, second, 15)).status).toBe("assigned")
      expect(yield* runOf(env, first)).toMatchObject({ status: "expired", waitReason: null })
      const events = yield* call("GET", `/api/v1/runs/${first}/events`, { cookie: env.user.cookie })
      expect((events.body.items as Array<{ status: string }>).map((e) => e.status)).toEqual(["queued", "assigned", "expired"])
    }))
})
