import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { RunStatus } from "../../src/Contract/Domain/Run.js"
import { addEnvironment, addMember, createTrigger, insertRun, setupEnvironment, type TestEnv } from "../support/Fixtures.js"
import { call, layer, registerUser } from "../support/TestApp.js"

const seriesPath = (env: TestEnv, query: Record<string, string> = {}) => {
  const q = new URLSearchParams(query).toString()
  return `/api/v1/environments/${env.environmentId}/dashboard/runs${q === "" ? "" : `?${q}`}`
}

const at = (iso: string) => new Date(iso)

/** A run created at `created` and, when `ended` is given, ended then with `status` after `durationMs`. */
const seed = (triggerId: string, environmentId: string, created: string, end?: { at: string; status: RunStatus; durationMs: number }) =>
  Effect.gen(function*() {
    const id = yield* insertRun(triggerId, environmentId, {
      status: end?.status ?? "queued",
      createdAt: at(created),
      endedAt: end === undefined ? null : at(end.at)
    })
    if (end !== undefined) {
      const sql = yield* SqlClient.SqlClient
      yield* sql`UPDATE runs SET duration_ms = ${end.durationMs} WHERE id = ${id}`.pipe(Effect.orDie)
    }
  })

const empty = { queued: 0, succeeded: 0, failed: 0, timedOut: 0, cancelled: 0, expired: 0, p50DurationMs: null, p95DurationMs: null }

withLayer(layer(), { excludeTestServices: true })("dashboard time series", (it) => {
  describe("GET /environments/{envId}/dashboard/runs", () => {
    it.effect("hour buckets: requests by creation, endings by end and status, exact percentiles, empty buckets listed", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const other = yield* addEnvironment(env)
        const t = yield* createTrigger(env)
        const t2 = yield* createTrigger(other)
        // 10:00–11:00: three requested; 11:00–12:00: ten ended (durations 100..1000); 12:00–13:00 nothing.
        yield* seed(t.id, env.environmentId, "2026-03-01T10:00:00.000Z")
        yield* seed(t.id, env.environmentId, "2026-03-01T10:59:59.999Z", { at: "2026-03-01T11:00:00.000Z", status: "failed", durationMs: 1000 })
        yield* seed(t.id, env.environmentId, "2026-03-01T10:30:00.000Z", { at: "2026-03-01T11:10:00.000Z", status: "timed_out", durationMs: 900 })
        for (let i = 1; i <= 8; i++) {
          yield* seed(t.id, env.environmentId, "2026-03-01T08:00:00.000Z", {
            at: `2026-03-01T11:${String(10 + i).padStart(2, "0")}:00.000Z`,
            status: "succeeded",
            durationMs: i * 100
          })
        }
        // 12:00–13:00: one run that was never picked up, expired.
        yield* seed(t.id, env.environmentId, "2026-03-01T08:00:00.000Z", { at: "2026-03-01T12:30:00.000Z", status: "expired", durationMs: 50 })
        // At `to` and after: not counted. Before the first bucket: not counted. Another environment: never.
        yield* seed(t.id, env.environmentId, "2026-03-01T13:00:00.000Z")
        yield* seed(t.id, env.environmentId, "2026-03-01T09:59:59.999Z")
        yield* seed(t2.id, other.environmentId, "2026-03-01T10:15:00.000Z", { at: "2026-03-01T11:15:00.000Z", status: "succeeded", durationMs: 5 })

        const res = yield* call("GET", seriesPath(env, { from: "2026-03-01T10:20:00Z", to: "2026-03-01T13:00:00Z", bucket: "hour" }), {
          cookie: env.user.cookie
        })
        expect(res.status).toBe(200)
        expect(res.body).toEqual({
          items: [
            // The first bucket starts at `from` rounded down to the hour and counts its whole hour.
            { bucketStart: "2026-03-01T10:00:00.000Z", ...empty, queued: 3 },
            {
              bucketStart: "2026-03-01T11:00:00.000Z",
              ...empty,
              succeeded: 8,
              failed: 1,
              timedOut: 1,
              // Durations 100..1000: the 5th and the 10th of ten (nearest rank, a run's own value).
              p50DurationMs: 500,
              p95DurationMs: 1000
            },
            { bucketStart: "2026-03-01T12:00:00.000Z", ...empty, expired: 1, p50DurationMs: 50, p95DurationMs: 50 }
          ]
        })
      }))

    it.effect("minute and day buckets are aligned on UTC minutes and midnights", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const t = yield* createTrigger(env)
        yield* seed(t.id, env.environmentId, "2026-03-01T23:59:59.000Z")
        yield* seed(t.id, env.environmentId, "2026-03-02T00:00:00.000Z", { at: "2026-03-02T00:01:30.000Z", status: "succeeded", durationMs: 42 })

        const minutes = yield* call("GET", seriesPath(env, { from: "2026-03-01T23:59:30Z", to: "2026-03-02T00:02:00Z", bucket: "minute" }), {
          cookie: env.user.cookie
        })
        expect(minutes.status).toBe(200)
        expect(minutes.body.items).toEqual([
          { bucketStart: "2026-03-01T23:59:00.000Z", ...empty, queued: 1 },
          { bucketStart: "2026-03-02T00:00:00.000Z", ...empty, queued: 1 },
          { bucketStart: "2026-03-02T00:01:00.000Z", ...empty, succeeded: 1, p50DurationMs: 42, p95DurationMs: 42 }
        ])

        const days = yield* call("GET", seriesPath(env, { from: "2026-03-01T12:00:00+02:00", to: "2026-03-03T00:00:00Z", bucket: "day" }), {
          cookie: env.user.cookie
        })
        expect(days.status).toBe(200)
        expect(days.body.items).toEqual([
          { bucketStart: "2026-03-01T00:00:00.000Z", ...empty, queued: 1 },
          { bucketStart: "2026-03-02T00:00:00.000Z", ...empty, queued: 1, succeeded: 1, p50DurationMs: 42, p95DurationMs: 42 }
        ])
      }))

    it.effect("defaults: the last 24 hours by hour, the current hour last", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const t = yield* createTrigger(env)
        yield* insertRun(t.id, env.environmentId, { status: "succeeded" })
        const before = Date.now()
        const res = yield* call("GET", seriesPath(env), { cookie: env.user.cookie })
        expect(res.status).toBe(200)
        const items: Array<{ bucketStart: string; queued: number; succeeded: number }> = res.body.items
        const hour = 3_600_000
        // 24 hours from an instant that is rarely on the hour: 25 buckets (24 on the hour exactly).
        expect(items.length === 25 || items.length === 24).toBe(true)
        const last = items[items.length - 1]!
        expect(Date.parse(last.bucketStart)).toBe(Math.floor(before / hour) * hour)
        expect(items.every((b, i) => i === 0 || Date.parse(b.bucketStart) - Date.parse(items[i - 1]!.bucketStart) === hour)).toBe(true)
        expect(items.reduce((n, b) => n + b.queued, 0)).toBe(1)
        expect(last.succeeded).toBe(1)
      }))

    it.effect("a closed hour or day bucket is computed once and kept; open buckets are read live", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const t = yield* createTrigger(env)
        const sql = yield* SqlClient.SqlClient
        const hour = 3_600_000
        const currentHour = Math.floor(Date.now() / hour) * hour
        // Three hours ago: a bucket that closed (it ended more than an hour ago).
        const old = new Date(currentHour - 3 * hour + 60_000).toISOString()
        yield* seed(t.id, env.environmentId, old, { at: old, status: "succeeded", durationMs: 7 })
        const get = () => call("GET", seriesPath(env), { cookie: env.user.cookie })
        const total = (items: Array<{ queued: number; succeeded: number }>) =>
          items.reduce((n, b) => ({ queued: n.queued + b.queued, succeeded: n.succeeded + b.succeeded }), { queued: 0, succeeded: 0 })
        const first = yield* get()
        expect(total(first.body.items)).toEqual({ queued: 1, succeeded: 1 })
        const kept = yield* sql<{ n: number }>`
          SELECT count(*)::int AS n FROM run_series_buckets WHERE environment_id = ${env.environmentId} AND bucket_seconds = 3600`
        // Every whole hour of the window that ended over an hour ago: at least the 22 before the last two.
        expect(kept[0]!.n).toBeGreaterThanOrEqual(22)
        // The runs go (retention); the closed bucket keeps its figures, like the overview's daily totals.
        yield* sql`DELETE FROM runs WHERE environment_id = ${env.environmentId}`
        const again = yield* get()
        expect(again.body.items).toEqual(first.body.items)
        // A run now lands in the open current hour, read live.
        yield* insertRun(t.id, env.environmentId, { status: "queued" })
        const live = yield* get()
        expect(total(live.body.items)).toEqual({ queued: 2, succeeded: 1 })
        expect(live.body.items[live.body.items.length - 1].queued).toBe(1)
        // Minute buckets are never kept.
        const minutes = yield* call("GET", seriesPath(env, { from: new Date(currentHour - 3 * hour).toISOString(), bucket: "minute" }), {
          cookie: env.user.cookie
        })
        expect(minutes.status).toBe(200)
        const keptMinutes = yield* sql<{ n: number }>`
          SELECT count(*)::int AS n FROM run_series_buckets WHERE environment_id = ${env.environmentId} AND bucket_seconds = 60`
        expect(keptMinutes[0]!.n).toBe(0)
      }))

    it.effect("400: unknown bucket, malformed or reversed from/to, more than 1,000 buckets; exactly 1,000 is fine", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const get = (query: Record<string, string>) => call("GET", seriesPath(env, query), { cookie: env.user.cookie })
        const week = yield* get({ bucket: "week" })
        expect(week.status).toBe(400)
        expect(JSON.stringify(week.body)).toContain("bucket")
        const malformed = yield* get({ from: "yesterday" })
        expect(malformed.status).toBe(400)
        expect(malformed.body.details.fieldErrors.from).toBeDefined()
        const reversed = yield* get({ from: "2026-03-02T00:00:00Z", to: "2026-03-01T00:00:00Z" })
        expect(reversed.status).toBe(400)
        expect(reversed.body.details.fieldErrors.from).toEqual(["from must be before to"])
        const same = yield* get({ from: "2026-03-01T00:00:00Z", to: "2026-03-01T00:00:00Z" })
        expect(same.status).toBe(400)
        const tooMany = yield* get({ from: "2026-03-01T00:00:00Z", to: "2026-03-01T16:40:00.001Z", bucket: "minute" })
        expect(tooMany.status).toBe(400)
        expect(tooMany.body.details.fieldErrors.bucket[0]).toContain("1001 buckets")
        const defaultHourTooMany = yield* get({ from: "2026-01-01T00:00:00Z", to: "2026-03-01T00:00:00Z" })
        expect(defaultHourTooMany.status).toBe(400)
        const thousand = yield* get({ from: "2026-03-01T00:00:00Z", to: "2026-03-01T16:40:00Z", bucket: "minute" })
        expect(thousand.status).toBe(200)
        expect(thousand.body.items).toHaveLength(1000)
        const years = yield* get({ from: "2024-01-01T00:00:00Z", to: "2026-01-01T00:00:00Z", bucket: "day" })
        expect(years.status).toBe(200)
        expect(years.body.items).toHaveLength(731)
      }))

    it.effect("viewer+ by cookie; outsiders 404; unauthenticated 401", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const viewer = yield* addMember(env, "viewer")
        expect((yield* call("GET", seriesPath(env), { cookie: viewer.cookie })).status).toBe(200)
        const stranger = yield* registerUser("stranger")
        expect((yield* call("GET", seriesPath(env), { cookie: stranger.cookie })).status).toBe(404)
        expect((yield* call("GET", "/api/v1/environments/nope/dashboard/runs", { cookie: env.user.cookie })).status).toBe(404)
        expect((yield* call("GET", seriesPath(env))).status).toBe(401)
      }))
  })
})
