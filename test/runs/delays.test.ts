import { describe, expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { addMember, createTrigger, registerWorker, setupEnvironment, type TestEnv } from "../support/Fixtures.js"
import { call, layer } from "../support/TestApp.js"

const runPath = (triggerId: string) => `/api/v1/triggers/${triggerId}/run`

const requestRun = (env: TestEnv, triggerId: string, body?: unknown) =>
  call("POST", runPath(triggerId), { cookie: env.user.cookie, ...(body === undefined ? {} : { body }) })

const inSeconds = (s: number) => new Date(Date.now() + s * 1000).toISOString()

withLayer(layer(), { excludeTestServices: true })("delays, priority, time-to-live and backoff over HTTP", (it) => {
  describe("POST /triggers/{id}/run", () => {
    it.effect("delaySeconds: 201 queued with availableAt, waitReason delayed; runAt likewise; priority and ttl shown", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        yield* registerWorker(env)
        const trigger = yield* createTrigger(env, { ttlSeconds: 600 })
        const before = Date.now()
        const res = yield* requestRun(env, trigger.id, { delaySeconds: 600, priority: 60 })
        expect(res.status).toBe(201)
        expect(res.body).toMatchObject({ status: "queued", priority: 60, waitReason: "delayed" })
        const available = Date.parse(res.body.availableAt)
        expect(available).toBeGreaterThanOrEqual(before + 600_000)
        expect(available).toBeLessThan(Date.now() + 600_000 + 1)
        // The time-to-live counts from availableAt.
        expect(Date.parse(res.body.expiresAt)).toBe(available + 600_000)
        const read = yield* call("GET", `/api/v1/runs/${res.body.id}`, { cookie: env.user.cookie })
        expect(read.body).toMatchObject({ status: "queued", workerId: null, waitReason: "delayed", availableAt: res.body.availableAt })

        const at = inSeconds(3600)
        const byTime = yield* requestRun(env, trigger.id, { runAt: at, ttlSeconds: 5 })
        expect(byTime.status).toBe(201)
        expect(byTime.body.availableAt).toBe(at)
        expect(Date.parse(byTime.body.expiresAt)).toBe(Date.parse(at) + 5000)

        // Without options: placed as ever (a worker is online), nothing waiting.
        const plain = yield* requestRun(env, trigger.id)
        expect(plain.body).toMatchObject({ availableAt: null, priority: 0, waitReason: null })
      }))

    it.effect("bad input: 400 naming the field, nothing stored", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const trigger = yield* createTrigger(env)
        const cases: ReadonlyArray<readonly [unknown, string]> = [
          [{ delaySeconds: 10, runAt: inSeconds(60) }, "runAt"],
          [{ runAt: inSeconds(-60) }, "runAt"],
          [{ runAt: inSeconds(31 * 86_400) }, "runAt"],
          [{ runAt: "tomorrow" }, "runAt"],
          [{ delaySeconds: 30 * 86_400 + 1 }, "delaySeconds"],
          [{ delaySeconds: -1 }, "delaySeconds"],
          [{ priority: 86_401 }, "priority"],
          [{ priority: -86_401 }, "priority"],
          [{ priority: 1.5 }, "priority"],
          [{ ttlSeconds: 0 }, "ttlSeconds"]
        ]
        for (const [body, field] of cases) {
          const res = yield* requestRun(env, trigger.id, body)
          expect(res.status, JSON.stringify(body)).toBe(400)
          expect(typeof res.body.error).toBe("string")
          expect(Object.keys(res.body.details.fieldErrors), JSON.stringify(body)).toEqual([field])
        }
        const list = yield* call("GET", `/api/v1/triggers/${trigger.id}/runs`, { cookie: env.user.cookie })
        expect(list.body.items).toEqual([])
      }))
  })

  describe("PATCH /runs/{id}", () => {
    it.effect("reschedules a run not placed yet (operator); delaySeconds 0 starts it now; a placed or ended run is 409", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const trigger = yield* createTrigger(env, { ttlSeconds: 60 })
        const run = (yield* requestRun(env, trigger.id, { delaySeconds: 3600 })).body
        const at = inSeconds(7200)
        const moved = yield* call("PATCH", `/api/v1/runs/${run.id}`, { cookie: env.user.cookie, body: { runAt: at } })
        expect(moved.status).toBe(200)
        expect(moved.body).toMatchObject({ availableAt: at, waitReason: "delayed", status: "queued" })
        expect(Date.parse(moved.body.expiresAt)).toBe(Date.parse(at) + 60_000)

        const viewer = yield* addMember(env, "viewer")
        expect((yield* call("PATCH", `/api/v1/runs/${run.id}`, { cookie: viewer.cookie, body: { delaySeconds: 0 } })).status).toBe(403)
        const bad = yield* call("PATCH", `/api/v1/runs/${run.id}`, { cookie: env.user.cookie, body: {} })
        expect(bad.status).toBe(400)
        expect(Object.keys(bad.body.details.fieldErrors)).toEqual(["runAt"])

        // Start now: with a worker online it is placed.
        const worker = yield* registerWorker(env)
        const now = yield* call("PATCH", `/api/v1/runs/${run.id}`, { cookie: env.user.cookie, body: { delaySeconds: 0 } })
        expect(now.status).toBe(200)
        expect(now.body.waitReason).toBe(null)
        const placed = yield* call("GET", `/api/v1/runs/${run.id}`, { cookie: env.user.cookie })
        expect(placed.body).toMatchObject({ status: "assigned", workerId: worker.workerId })
        const late = yield* call("PATCH", `/api/v1/runs/${run.id}`, { cookie: env.user.cookie, body: { delaySeconds: 60 } })
        expect(late.status).toBe(409)
        expect(late.body.error).toMatch(/reschedule/)

        const cancelled = (yield* requestRun(env, trigger.id, { delaySeconds: 60 })).body
        expect((yield* call("POST", `/api/v1/runs/${cancelled.id}/cancel`, { cookie: env.user.cookie })).status).toBe(200)
        expect((yield* call("PATCH", `/api/v1/runs/${cancelled.id}`, { cookie: env.user.cookie, body: { delaySeconds: 5 } })).status).toBe(409)
        expect((yield* call("PATCH", `/api/v1/runs/00000000-0000-7000-8000-000000000000`, {
          cookie: env.user.cookie,
          body: { delaySeconds: 5 }
        })).status).toBe(404)
      }))
  })

  describe("triggers: ttlSeconds and retry", () => {
    it.effect("defaults, partial retry policy, PATCH, and 400 for a factor of 0 naming retry", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const plain = yield* createTrigger(env)
        expect(plain).toMatchObject({ ttlSeconds: null, retry: { initialDelaySeconds: 0, factor: 2, maxDelaySeconds: 3600, jitter: 0 } })
        const backoff = yield* createTrigger(env, { ttlSeconds: 120, retry: { initialDelaySeconds: 2, maxDelaySeconds: 30, jitter: 0.1 } })
        expect(backoff).toMatchObject({ ttlSeconds: 120, retry: { initialDelaySeconds: 2, factor: 2, maxDelaySeconds: 30, jitter: 0.1 } })
        const patched = yield* call("PATCH", `/api/v1/triggers/${backoff.id}`, {
          cookie: env.user.cookie,
          body: { retry: { factor: 3 }, ttlSeconds: null }
        })
        expect(patched.status).toBe(200)
        expect(patched.body).toMatchObject({ ttlSeconds: null, retry: { initialDelaySeconds: 2, factor: 3, maxDelaySeconds: 30, jitter: 0.1 } })
        for (const retry of [{ factor: 0 }, { initialDelaySeconds: 3601 }, { maxDelaySeconds: 86_401 }, { jitter: 1.5 }]) {
          const res = yield* call("POST", `/api/v1/environments/${env.environmentId}/triggers`, {
            cookie: env.user.cookie,
            body: { name: "x", retry }
          })
          expect(res.status, JSON.stringify(retry)).toBe(400)
          expect(Object.keys(res.body.details.fieldErrors)).toEqual(["retry"])
        }
      }))
  })
})
