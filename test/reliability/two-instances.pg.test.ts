import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { createDatabase, sleep, startReceiver, startService, cleanupsAfterAll, faultLock, type TestDatabase } from "../support/Process.js"
import { expireLeases, figures, orphanLeases, settle, setupTenant, startLoad, Stats, nothingLostOrDuplicated } from "./load.js"

/**
 * Two service processes on one database, behind no balancer: half the
 * workers talk to A, half to B, the producer alternates. A is killed with
 * SIGKILL mid-load and never comes back; its workers die with it. B must take
 * over supervision (time out or requeue A's runs) and delivery (A's outbox
 * rows), and every run must still end exactly once.
 */

const cleanup = cleanupsAfterAll()

/** Runs not ended yet (queued, claimed or running). */
const activeRuns = async (db: TestDatabase): Promise<number> => {
  const [row] = await db.query<{ n: string }>(`SELECT count(*)::text AS n FROM runs WHERE status NOT IN ('succeeded', 'failed', 'timed_out')`)
  return Number(row!.n)
}

/** Resolves once at least `n` runs have not ended (checked every 20 ms), or after `timeoutMs` regardless. */
const untilActive = async (db: TestDatabase, n: number, timeoutMs: number): Promise<void> => {
  const until = Date.now() + timeoutMs
  while (Date.now() < until && (await activeRuns(db)) < n) await sleep(20)
}

describe("two instances", () => {
  it.scopedLive("kill one of two instances mid-load: the other finishes everything, exactly once", () =>
    Effect.gen(function*() {
      yield* faultLock
      const db = yield* Effect.promise(createDatabase)
      cleanup(db.drop)
      const receiver = yield* Effect.promise(startReceiver)
      cleanup(receiver.close)
      const env = {
        DATABASE_URL: db.url,
        // One DATA_DIR: both instances must share the generated JWT and webhook-secret keys.
        DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "pts-two-")),
        CLAIM_TIMEOUT_SECONDS: "3",
        WORKER_OFFLINE_AFTER_SECONDS: "6"
      }
      const a = yield* Effect.promise(() => startService(env))
      cleanup(() => a.stop())
      const b = yield* Effect.promise(() => startService(env))
      cleanup(() => b.stop())
      const tenant = yield* Effect.promise(() => setupTenant(a.url, receiver.url, 6))
      const stats = new Stats()
      let aAlive = true
      const load = startLoad({
        tenant,
        stats,
        runs: 300,
        runsPerSecond: 40,
        workerTarget: (i) => (i % 2 === 0 ? (aAlive ? a.url : undefined) : b.url),
        producerTargets: () => (aAlive ? [a.url, b.url] : [b.url])
      })

      yield* Effect.promise(() => sleep(3500))
      // Mid-load means runs in flight: a run lives ~50 ms here, so at a fixed
      // moment none may be (CI once killed A with 0 active). Kill the moment
      // the database has several not yet ended.
      yield* Effect.promise(() => untilActive(db, 2, 30_000))
      a.kill("SIGKILL")
      aAlive = false
      yield* Effect.promise(() => a.exited)
      const active = yield* Effect.promise(() => activeRuns(db))
      // A's leases are the ones that stay put while B keeps delivering.
      const orphans = yield* Effect.promise(() => orphanLeases(db, 2000))
      const expired = yield* Effect.promise(() => expireLeases(db, orphans))

      yield* Effect.promise(() => load.pushedAll)
      const settled = yield* Effect.promise(() => settle(db, 60_000))
      yield* Effect.promise(load.stop)
      const result = yield* Effect.promise(() => figures(db, receiver, stats))
      yield* Effect.logInfo("two instances: figures").pipe(
        Effect.annotateLogs({
          ...result,
          byStatus: JSON.stringify(result.byStatus),
          faultsInjected: 1,
          activeAtKill: active,
          orphanLeases: expired
        })
      )

      expect(b.isRunning(), b.output()).toBe(true)
      expect(settled, JSON.stringify(result)).toBe(true)
      expect(active).toBeGreaterThan(0)
      expect(result).toMatchObject({
        runsPushed: 300,
        ...nothingLostOrDuplicated,
        http5xx: 0
      })
      expect(result.deliveryRecords).toBe(result.webhookRuns)
      expect(stats.serverErrors).toEqual([])
    }), { timeout: 420_000 })
})
