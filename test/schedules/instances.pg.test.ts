import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { cleanupsAfterAll, createDatabase, faultLock, sleep, startService, waitUntil } from "../support/Process.js"

/**
 * Two service processes on one Postgres database fire 200 every-second
 * schedules for ~20 s; A is killed with SIGKILL (mid-fire, most likely: at
 * 200 ticks a second some statement is always in flight), B carries on alone,
 * then A is restarted on the same database.
 *
 * "No tick lost", precisely: every trigger's runs are exactly the ticks
 * `first, first + 1 s, …, next_run_at − 1 s`, where `first` is the tick the
 * schedule started at and `next_run_at` its state when both instances have
 * stopped: one run per tick (no duplicate), no gap, the schedule advanced
 * only by firing. catchUp never applies (it needs a tick over a minute late,
 * and B never stops), so even across the kill nothing may be skipped. The
 * instances run until every schedule has fired past the downtime, so each
 * trigger's ticks span the kill; B created runs while A was down (it took
 * over). The checks compare tick sets and states in SQL, never timings: a
 * loaded machine fires late (seconds behind the clock), not differently.
 */

const cleanup = cleanupsAfterAll()

const triggers = 200

describe("scheduled triggers on two instances", () => {
  it.scopedLive("kill -9 one of two instances: every trigger has exactly one run per tick, none lost", () =>
    Effect.gen(function*() {
      yield* faultLock
      const db = yield* Effect.promise(createDatabase)
      cleanup(db.drop)
      // A failing statement names itself and Postgres' reason.
      const query = <A>(text: string) =>
        Effect.promise(() =>
          db.query<A>(text).catch((error) => {
            throw new Error(`${text}\n→ ${error?.cause?.message ?? error}`)
          })
        )
      // One DATA_DIR: both instances share the generated keys (the fixed test keys too).
      const env = { DATABASE_URL: db.url, DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "pts-schedules-")) }
      const a = yield* Effect.promise(() => startService(env))
      cleanup(() => a.stop())
      const b = yield* Effect.promise(() => startService(env))
      cleanup(() => b.stop())

      // 200 triggers on `* * * * * *` in one statement (the API would take as long as the test),
      // all starting at the same tick a few seconds ahead; then the change signal both instances LISTEN for.
      const [{ first }] = (yield* query<{ first: Date }>(`
          WITH u AS (
            INSERT INTO users (id, email, password_hash) VALUES (gen_random_uuid(), 'owner@example.com', 'x') RETURNING id
          ), w AS (
            INSERT INTO workspaces (id, name, owner_id) SELECT gen_random_uuid(), 'ws', id FROM u RETURNING id
          ), e AS (
            INSERT INTO environments (id, workspace_id, name) SELECT gen_random_uuid(), id, 'env' FROM w RETURNING id
          ), t AS (
            INSERT INTO triggers (id, environment_id, name, input, timeout_seconds, heartbeat_timeout_seconds, max_retries,
                                  schedule_cron, schedule_timezone, schedule_catch_up, next_run_at)
            SELECT gen_random_uuid(), e.id, 'every second ' || i, '{"n": 1}'::jsonb, 3600, 30, 0,
                   '* * * * * *', 'UTC', 'latest', date_trunc('second', now()) + interval '3 seconds'
            FROM e, generate_series(1, ${triggers}) AS i
            RETURNING next_run_at
          )
          SELECT min(next_run_at) AS first FROM t`))!
      yield* query(`SELECT pg_notify('pts_schedule_changed', 'bulk')`)

      const now = () => query<{ now: Date }>(`SELECT clock_timestamp() AS now`).pipe(Effect.map((rows) => rows[0]!.now))
      yield* Effect.promise(() => sleep(7_000))
      a.kill("SIGKILL")
      yield* Effect.promise(() => a.exited)
      // While A is down (between these two instants), every run is B's.
      const killedAt = yield* now()
      yield* Effect.promise(() => sleep(5_000))
      const restartingAt = yield* now()
      const a2 = yield* Effect.promise(() => startService(env, { port: a.port }))
      cleanup(() => a2.stop())
      // Until every schedule has fired past the downtime (a loaded machine fires late: a state, not a time).
      const past = yield* Effect.promise(() =>
        waitUntil(async () => {
          const [row] = await db.query<{ behind: number }>(
            `SELECT count(*)::int AS behind FROM triggers WHERE next_run_at <= '${restartingAt.toISOString()}'::timestamptz + interval '2 seconds'`
          )
          return row!.behind === 0
        }, 90_000)
      )
      expect(past, "every schedule fired past the downtime").toBe(true)
      // Both stop; whatever they fired last, the schedules' state is final now.
      yield* Effect.promise(() => Promise.all([a2.stop(), b.stop()]))

      const rows = yield* query<
          { id: string; next_run_at: Date; runs: number; ticks: number; first_tick: Date | null; last_tick: Date | null }
        >(`
          SELECT t.id, t.next_run_at, count(r.id)::int AS runs, count(DISTINCT r.scheduled_for)::int AS ticks,
                 min(r.scheduled_for) AS first_tick, max(r.scheduled_for) AS last_tick
          FROM triggers t LEFT JOIN runs r ON r.trigger_id = t.id
          GROUP BY t.id`)
      expect(rows).toHaveLength(triggers)
      const wrong = rows.filter((row) => {
        const span = (row.next_run_at.getTime() - first.getTime()) / 1000
        return row.runs !== row.ticks || row.runs !== span || row.first_tick?.getTime() !== first.getTime() ||
          row.last_tick?.getTime() !== row.next_run_at.getTime() - 1000
      })
      expect(wrong.slice(0, 5), `${wrong.length} triggers with a lost, doubled or missing tick\nB:\n${b.output().slice(-4000)}`).toEqual([])

      // B took over: it went on creating runs while A was down.
      const [survivor] = yield* query<{ runs: number }>(`
        SELECT count(*)::int AS runs FROM runs
        WHERE created_at > '${killedAt.toISOString()}' AND created_at < '${restartingAt.toISOString()}'`)
      expect(survivor!.runs).toBeGreaterThan(0)

      // Each run was requested once, by the system, for its own tick.
      const [audit] = yield* query<{ runs: number; audited: number; mismatched: number }>(`
          SELECT (SELECT count(*)::int FROM runs) AS runs,
                 count(*)::int AS audited,
                 count(*) FILTER (WHERE a.actor_type <> 'system' OR (a.metadata->>'scheduledFor')::timestamptz <> r.scheduled_for)::int AS mismatched
          FROM audit_log a JOIN runs r ON r.id = a.target_id WHERE a.action = 'run.requested'`)
      expect(audit!.audited).toBe(audit!.runs)
      expect(audit!.mismatched).toBe(0)
      const total = rows.reduce((sum, row) => sum + row.runs, 0)
      yield* Effect.logInfo("two instances, every-second schedules: figures").pipe(
        Effect.annotateLogs({ triggers, runs: total, ticksPerTrigger: total / triggers })
      )
      // The first instance's own exit was the crash, not a clean stop.
      expect((yield* Effect.promise(() => a.exited)).signal).toBe("SIGKILL")
    }), { timeout: 240_000 })
})
