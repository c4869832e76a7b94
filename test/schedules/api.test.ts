import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { addMember, createTrigger, setupEnvironment, type TestEnv } from "../support/Fixtures.js"
import { call, layer } from "../support/TestApp.js"

const triggersPath = (env: TestEnv) => `/api/v1/environments/${env.environmentId}/triggers`

const sleep = (ms: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))

const scheduledRuns = (triggerId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return yield* sql<{ id: string; scheduled_for: Date; input: unknown; status: string }>`
      SELECT id, scheduled_for, input, status FROM runs WHERE trigger_id = ${triggerId} ORDER BY scheduled_for`
  }).pipe(Effect.orDie)

const auditOf = (targetId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return yield* sql<{ action: string; actor_type: string; actor_id: string | null; metadata: any }>`
      SELECT action, actor_type, actor_id, metadata FROM audit_log WHERE target_id = ${targetId} ORDER BY id`
  }).pipe(Effect.orDie)

/** Waits (real time) until `check` holds, up to ~10 s. */
const until = <A, R>(read: Effect.Effect<A, never, R>, check: (a: A) => boolean) =>
  Effect.gen(function*() {
    let last: A | undefined
    for (let i = 0; i < 200; i++) {
      last = yield* read
      if (check(last)) return last
      yield* sleep(50)
    }
    return yield* Effect.dieMessage(`condition not reached: ${JSON.stringify(last)}`)
  })

withLayer(layer(), { excludeTestServices: true })("scheduled triggers over HTTP", (it) => {
  describe("create, read, patch", () => {
    it.effect("schedule with defaults and nextRunAt; null without one; the zone spelled canonically", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const plain = yield* call("POST", triggersPath(env), { cookie: env.user.cookie, body: { name: "plain" } })
        expect(plain.status).toBe(201)
        expect(plain.body).toMatchObject({ schedule: null, nextRunAt: null })

        const before = Date.now()
        const res = yield* call("POST", triggersPath(env), {
          cookie: env.user.cookie,
          body: { name: "nightly", schedule: { cron: "30  2 * * *", timezone: "europe/berlin" } }
        })
        expect(res.status).toBe(201)
        expect(res.body.schedule).toEqual({ cron: "30 2 * * *", timezone: "Europe/Berlin", catchUp: "latest" })
        const next = new Date(res.body.nextRunAt).getTime()
        expect(next).toBeGreaterThan(before)
        expect(next - before).toBeLessThanOrEqual(25 * 3600_000)
        // 02:30 in Berlin is 00:30 or 01:30 UTC.
        expect(new Date(next).getUTCMinutes()).toBe(30)
        expect([0, 1]).toContain(new Date(next).getUTCHours())

        const utc = yield* call("POST", triggersPath(env), {
          cookie: env.user.cookie,
          body: { name: "hourly", schedule: { cron: "0 * * * *", catchUp: "none" } }
        })
        expect(utc.body.schedule).toEqual({ cron: "0 * * * *", timezone: "UTC", catchUp: "none" })
        expect(new Date(utc.body.nextRunAt).getUTCMinutes()).toBe(0)

        const got = yield* call("GET", `/api/v1/triggers/${res.body.id}`, { cookie: env.user.cookie })
        expect(got.body).toEqual(res.body)
        const audit = yield* auditOf(res.body.id)
        expect(audit[0]!.metadata).toMatchObject({ hasSchedule: true })
      }))

    it.effect("400 names the field: bad cron, unknown or offset zone, bad catchUp, missing cron", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const bad = (schedule: unknown) => call("POST", triggersPath(env), { cookie: env.user.cookie, body: { name: "x", schedule } })
        for (
          const [schedule, fragment] of [
            [{ cron: "61 * * * *" }, "cron"],
            [{ cron: "* * *" }, "cron"],
            [{ cron: "0 0 30 2 *" }, "cron never matches"],
            [{ cron: "* * * * *", timezone: "Mars/Olympus" }, "timezone"],
            [{ cron: "* * * * *", timezone: "+02:00" }, "timezone"],
            [{ cron: "* * * * *", catchUp: "all" }, "catchUp"],
            [{ timezone: "UTC" }, "cron is required"],
            ["daily", ""]
          ] as const
        ) {
          const res = yield* bad(schedule)
          expect(res.status, JSON.stringify(schedule)).toBe(400)
          expect(Object.keys(res.body.details.fieldErrors)).toEqual(["schedule"])
          expect(res.body.details.fieldErrors.schedule.join(" ")).toContain(fragment)
        }
        const t = yield* createTrigger(env)
        const patch = yield* call("PATCH", `/api/v1/triggers/${t.id}`, {
          cookie: env.user.cookie,
          body: { schedule: { cron: "* * * * *", timezone: "Nowhere/Land" }, maxRetries: 99 }
        })
        expect(patch.status).toBe(400)
        expect(Object.keys(patch.body.details.fieldErrors).sort()).toEqual(["maxRetries", "schedule"])
      }))

    it.effect("admin or higher sets schedules; an operator gets 403", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const t = yield* createTrigger(env)
        const operator = yield* addMember(env, "operator")
        const res = yield* call("PATCH", `/api/v1/triggers/${t.id}`, {
          cookie: operator.cookie,
          body: { schedule: { cron: "* * * * *" } }
        })
        expect(res.status).toBe(403)
        const admin = yield* addMember(env, "admin")
        const ok = yield* call("PATCH", `/api/v1/triggers/${t.id}`, { cookie: admin.cookie, body: { schedule: { cron: "* * * * *" } } })
        expect(ok.status).toBe(200)
        expect(ok.body.schedule).toEqual({ cron: "* * * * *", timezone: "UTC", catchUp: "latest" })
      }))

    it.effect("PATCH: a new schedule moves nextRunAt, the same one keeps it, null removes it; audited as schedule", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const t = yield* createTrigger(env, { schedule: { cron: "0 0 1 1 *" } })
        const path = `/api/v1/triggers/${t.id}`
        const yearly = new Date(t.nextRunAt as string)
        expect(yearly.getUTCMonth()).toBe(0)
        expect(yearly.getUTCDate()).toBe(1)

        const same = yield* call("PATCH", path, { cookie: env.user.cookie, body: { schedule: { cron: "0 0 1 1 *", timezone: "UTC" } } })
        expect(same.body.nextRunAt).toBe(t.nextRunAt)

        const hourly = yield* call("PATCH", path, { cookie: env.user.cookie, body: { schedule: { cron: "0 * * * *" } } })
        expect(hourly.status).toBe(200)
        expect(new Date(hourly.body.nextRunAt).getTime() - Date.now()).toBeLessThanOrEqual(3600_000)

        const renamed = yield* call("PATCH", path, { cookie: env.user.cookie, body: { name: "renamed" } })
        expect(renamed.body.schedule).toEqual(hourly.body.schedule)
        expect(renamed.body.nextRunAt).toBe(hourly.body.nextRunAt)

        const cleared = yield* call("PATCH", path, { cookie: env.user.cookie, body: { schedule: null } })
        expect(cleared.body).toMatchObject({ schedule: null, nextRunAt: null })
        const audit = yield* auditOf(t.id)
        expect(audit.map((a) => a.metadata.changed ?? null)).toEqual([null, ["schedule"], ["name"], ["schedule"]])
      }))
  })

  describe("firing (real time)", () => {
    it.effect("an every-second schedule starts runs with the trigger's input, audited as system with scheduledFor", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const t = yield* createTrigger(env, { input: { job: "sync" }, schedule: { cron: "* * * * * *" } })
        const runs = yield* until(scheduledRuns(t.id), (rows) => rows.length >= 2)
        for (const run of runs) {
          expect(run.input).toEqual({ job: "sync" })
          expect(new Date(run.scheduled_for).getUTCMilliseconds()).toBe(0)
        }
        const ticks = runs.map((r) => new Date(r.scheduled_for).getTime())
        expect(new Set(ticks).size).toBe(ticks.length)
        const audit = (yield* auditOf(runs[0]!.id))
        expect(audit).toHaveLength(1)
        expect(audit[0]).toMatchObject({ action: "run.requested", actor_type: "system", actor_id: null })
        expect(audit[0]!.metadata).toMatchObject({ triggerId: t.id, scheduledFor: new Date(runs[0]!.scheduled_for).toISOString() })
        // Stopping and restarting (PATCH null, soft delete) are proven tick by tick in ticks.test.ts (TestClock).
        const stopped = yield* call("PATCH", `/api/v1/triggers/${t.id}`, { cookie: env.user.cookie, body: { schedule: null } })
        expect(stopped.status).toBe(200)
      }))
  })
})
