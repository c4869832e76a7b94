import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import pg from "pg"
import { cleanupsAfterAll, createDatabase, faultLock, request, sleep, startService, waitUntil } from "../support/Process.js"
import { setupTenant } from "./load.js"

/**
 * A bulk replay of 10,000 failed runs, with the instance doing it killed with
 * SIGKILL half-way (aimed at a batch whose replays are made and not yet
 * recorded) and started again on the same database: exactly 10,000
 * new runs, each linked by `replayOfRunId` to a different failed run, one
 * `run.requested` record each, and the bulk action completed with its counts
 * and audited once.
 */

const cleanup = cleanupsAfterAll()
const runs = 10_000

describe("bulk replay under kill -9", () => {
  it.scopedLive("10,000 failed runs: killed half-way, resumed by the restarted instance, exactly 10,000 replays", () =>
    Effect.gen(function*() {
      yield* faultLock
      const db = yield* Effect.promise(createDatabase)
      cleanup(db.drop)
      const env = {
        DATABASE_URL: db.url,
        DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "pts-bulk-")),
        // A dead instance's bulk action is taken over this soon.
        BULK_ACTION_LEASE_SECONDS: "2"
      }
      let service = yield* Effect.promise(() => startService(env))
      cleanup(() => service.stop())
      const tenant = yield* Effect.promise(() => setupTenant(service.url, "http://127.0.0.1:9/hook", 0))
      const triggerId = tenant.plainTriggerId
      yield* Effect.promise(() =>
        db.query(`
          INSERT INTO runs (id, trigger_id, environment_id, status, attempt, input, timeout_seconds, heartbeat_timeout_seconds,
            max_retries, created_at, ended_at, duration_ms, fault_class)
          SELECT gen_random_uuid(), '${triggerId}', '${tenant.environmentId}', 'failed', 1, jsonb_build_object('n', g), 60, 5, 0,
            now() - interval '1 hour', now() - interval '59 minutes', 1000, 'client'
          FROM generate_series(1, ${runs}) AS g`)
      )

      const created = yield* Effect.promise(() =>
        request(service.url, "POST", `/api/v1/environments/${tenant.environmentId}/bulk-actions`, {
          bearer: tenant.apiKey,
          body: { action: "replay", filter: { status: "failed", triggerId } }
        })
      )
      expect(created.status, JSON.stringify(created.body)).toBe(201)
      expect(created.body.matched).toBe(runs)
      const id = created.body.id as string
      const progress = () => request(service.url, "GET", `/api/v1/bulk-actions/${id}`, { bearer: tenant.apiKey }).then((r) => r.body)

      // Half-way, aiming at the moment a batch's replays are made and not yet recorded (made > done), which
      // the next holder must do again without making them twice; past 80 % it kills whatever the moment.
      const watcher = new pg.Client({ connectionString: db.url })
      yield* Effect.promise(() => watcher.connect())
      cleanup(() => watcher.end())
      const reached = yield* Effect.promise(() =>
        waitUntil(async () => {
          const { rows } = await watcher.query<{ done: number; made: number }>(
            `SELECT b.done, (SELECT count(*)::int FROM pipeline_triggers.runs WHERE replay_of_run_id IS NOT NULL) AS made
             FROM pipeline_triggers.bulk_actions b WHERE b.id = $1`,
            [id]
          )
          const now = rows[0]!
          return (now.done >= runs * 0.3 && now.made > now.done) || now.done >= runs * 0.8
        }, 120_000, 1)
      )
      expect(reached).toBe(true)
      service.kill("SIGKILL")
      const exit = yield* Effect.promise(() => service.exited)
      expect(exit.signal).toBe("SIGKILL")
      const [atKill] = yield* Effect.promise(() =>
        db.query<{ done: number; replays: number }>(`
          SELECT b.done, (SELECT count(*)::int FROM runs WHERE replay_of_run_id IS NOT NULL) AS replays
          FROM bulk_actions b WHERE b.id = '${id}'`)
      )
      expect(atKill!.done).toBeLessThan(runs)
      expect(atKill!.replays).toBeLessThan(runs)

      yield* Effect.promise(() => sleep(500))
      service = yield* Effect.promise(() => startService(env, { port: service.port }))
      const resumedAt = Date.now()
      const finished = yield* Effect.promise(() => waitUntil(async () => (await progress())?.state === "completed", 180_000, 200))
      const final = yield* Effect.promise(progress)
      expect(finished, JSON.stringify(final)).toBe(true)
      expect(final).toMatchObject({ state: "completed", matched: runs, done: runs, skipped: 0, failed: 0 })

      const [counts] = yield* Effect.promise(() =>
        db.query<{ replays: number; distinct_originals: number; originals_replayed: number; requested: number; audited: number }>(`
          SELECT
            (SELECT count(*)::int FROM runs WHERE replay_of_run_id IS NOT NULL) AS replays,
            (SELECT count(DISTINCT replay_of_run_id)::int FROM runs WHERE replay_of_run_id IS NOT NULL) AS distinct_originals,
            (SELECT count(*)::int FROM runs o WHERE o.status = 'failed' AND o.replay_of_run_id IS NULL
               AND EXISTS (SELECT 1 FROM runs r WHERE r.replay_of_run_id = o.id)) AS originals_replayed,
            (SELECT count(*)::int FROM audit_log WHERE action = 'run.requested' AND metadata ? 'replayOfRunId') AS requested,
            (SELECT count(*)::int FROM audit_log WHERE target_id = '${id}') AS audited`)
      )
      yield* Effect.logInfo("bulk replay under kill -9: figures").pipe(Effect.annotateLogs({
        ...counts,
        doneAtKill: atKill!.done,
        replaysAtKill: atKill!.replays,
        // Replays made by the batch in hand, unrecorded when the process died: made again by none.
        batchInHandAtKill: atKill!.replays - atKill!.done,
        resumeToEndMs: Date.now() - resumedAt
      }))
      expect(counts).toEqual({ replays: runs, distinct_originals: runs, originals_replayed: runs, requested: runs, audited: 1 })
      // Each replay carries its original's input.
      const [mismatched] = yield* Effect.promise(() =>
        db.query<{ n: number }>(`
          SELECT count(*)::int AS n FROM runs r JOIN runs o ON o.id = r.replay_of_run_id WHERE r.input IS DISTINCT FROM o.input`)
      )
      expect(mismatched!.n).toBe(0)
    }), { timeout: 420_000 })
})
