import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import {
  addEnvironment,
  addMember,
  createTrigger,
  insertRun,
  mintApiKey,
  registerWorker,
  setupEnvironment,
  type TestEnv
} from "../support/Fixtures.js"
import { call, layer, registerUser } from "../support/TestApp.js"

const overviewPath = (env: TestEnv) => `/api/v1/environments/${env.environmentId}/dashboard/overview`

/** The start of the current UTC day and month, by the database clock (the one the service uses). */
const bounds = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ day_start: Date; month_start: Date }>`
    SELECT date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS day_start,
           date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS month_start`).pipe(
  Effect.map((rows) => rows[0]!),
  Effect.orDie
)

withLayer(layer(), { excludeTestServices: true })("dashboard", (it) => {
  describe("overview", () => {
    it.effect("an empty environment: zeros, null success rate and \"0\" spend", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const res = yield* call("GET", overviewPath(env), { cookie: env.user.cookie })
        expect(res.status).toBe(200)
        expect(res.body).toEqual({ onlineWorkers: 0, todaysRuns: 0, todaysExpiredRuns: 0, successRatePct: null, monthTokenSpendUsd: "0" })
      }))

    it.effect("counts, rate and exact month spend, within UTC day and month boundaries", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const other = yield* addEnvironment(env)
        const { day_start, month_start } = yield* bounds
        const w1 = yield* registerWorker(env)
        yield* registerWorker(env)
        const silent = yield* registerWorker(env)
        yield* registerWorker(other)
        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE workers SET last_seen_at = now() - interval '1 hour' WHERE id = ${silent.workerId}`.pipe(Effect.orDie)

        const t = yield* createTrigger(env)
        const t2 = yield* createTrigger(other)
        const run = (fields: Parameters<typeof insertRun>[2]) => insertRun(t.id, env.environmentId, fields)
        // Today: 3 succeeded, 1 failed, 1 timed_out, 1 expired (outcomes: 6), 1 cancelled (left out), 1 running, 1 queued.
        yield* run({ status: "succeeded", costUsd: "0.1", workerId: w1.workerId })
        yield* run({ status: "succeeded" })
        yield* run({ status: "expired" })
        yield* run({ status: "cancelled" })
        yield* run({ status: "succeeded", costUsd: "0.2" })
        yield* run({ status: "failed", costUsd: "0.00000001" })
        yield* run({ status: "timed_out", costUsd: null })
        yield* run({ status: "running" })
        yield* run({ status: "queued" })
        // Created just before today's start, ended this month: spend counts, today's figures do not.
        const beforeToday = new Date(day_start.getTime() - 1000)
        const endedThisMonth = beforeToday < month_start ? month_start : beforeToday
        yield* run({ status: "failed", createdAt: new Date(endedThisMonth.getTime() - 60_000), endedAt: endedThisMonth, costUsd: "999999999999.99999999" })
        // Ended before this month: neither.
        yield* run({
          status: "succeeded",
          createdAt: new Date(month_start.getTime() - 3_600_000),
          endedAt: new Date(month_start.getTime() - 1),
          costUsd: "5"
        })
        // Another environment's runs never count.
        yield* insertRun(t2.id, other.environmentId, { status: "succeeded", costUsd: "7" })

        const res = yield* call("GET", overviewPath(env), { cookie: env.user.cookie })
        expect(res.status).toBe(200)
        expect(res.body).toEqual({
          onlineWorkers: 2,
          todaysRuns: 9,
          todaysExpiredRuns: 1,
          successRatePct: 50,
          monthTokenSpendUsd: "1000000000000.3"
        })
      }))

    it.effect("\"0.1\" + \"0.2\" is \"0.3\"; the rate has one decimal", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const t = yield* createTrigger(env)
        yield* insertRun(t.id, env.environmentId, { status: "succeeded", costUsd: "0.1" })
        yield* insertRun(t.id, env.environmentId, { status: "succeeded", costUsd: "0.2" })
        yield* insertRun(t.id, env.environmentId, { status: "failed" })
        const res = yield* call("GET", overviewPath(env), { cookie: env.user.cookie })
        expect(res.body.monthTokenSpendUsd).toBe("0.3")
        expect(res.body.successRatePct).toBe(66.7)
        expect(res.body.todaysRuns).toBe(3)
      }))

    it.effect("viewer+ by cookie or key; outsiders 404; unauthenticated 401", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const viewer = yield* addMember(env, "viewer")
        expect((yield* call("GET", overviewPath(env), { cookie: viewer.cookie })).status).toBe(200)
        const key = yield* mintApiKey(env, "viewer")
        expect((yield* call("GET", overviewPath(env), { bearer: key })).status).toBe(200)
        const other = yield* setupEnvironment()
        expect((yield* call("GET", overviewPath(other), { bearer: key })).status).toBe(404)
        const stranger = yield* registerUser("stranger")
        const hidden = yield* call("GET", overviewPath(env), { cookie: stranger.cookie })
        expect(hidden.status).toBe(404)
        expect(hidden.body.error).toBeTypeOf("string")
        expect((yield* call("GET", "/api/v1/environments/nope/dashboard/overview", { cookie: env.user.cookie })).status).toBe(404)
        expect((yield* call("GET", overviewPath(env))).status).toBe(401)
      }))
  })
})
