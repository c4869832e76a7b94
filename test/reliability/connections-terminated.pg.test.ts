import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { cleanupsAfterAll, faultLock, request, sleep } from "../support/Process.js"
import { figures, nothingLostOrDuplicated, settle, startLoad, Stats } from "./load.js"
import { resumeBoundMs, sdkFigures } from "./sdkWorkers.js"
import { startFaultFleet } from "./faultFleet.js"

/**
 * The service's database connections cut under load: for 3 s every backend
 * of the service's database is terminated (`pg_terminate_backend`) every
 * 100 ms, as a failover or a DBA's kill would, while runs flow to the load's
 * HTTP workers and to SDK worker processes over the worker channel and over
 * REST. The service answers 503 meanwhile (never another 5xx), no worker
 * exits, each takes runs again soon after (`resumeBoundMs`), and every run ends exactly once.
 */

const cleanup = cleanupsAfterAll()

describe("connections terminated", () => {
  it.scopedLive("the service's connections killed for 3 s: 503s, no worker exits, every run ends exactly once", () =>
    Effect.gen(function*() {
      yield* faultLock
      const { db, httpWorkers: tenant, receiver, sdk, service } = yield* Effect.promise(() => startFaultFleet(cleanup, "pts-terminated-"))
      const stats = new Stats()
      const load = startLoad({
        tenant,
        stats,
        runs: 450,
        runsPerSecond: 30,
        workerTarget: () => service.url,
        producerTargets: () => [service.url]
      })

      // A probe reading through the API every 50 ms: when the service answered anything but 200 last.
      let probing = true
      let lastRefusedAt = 0
      const probeLoop = (async () => {
        while (probing) {
          const reply = await request(service.url, "GET", `/api/v1/triggers/${tenant.webhookTriggerId}/runs?limit=5`, { bearer: tenant.apiKey, timeoutMs: 20_000 })
          if (reply.status !== 200) lastRefusedAt = Date.now()
          await sleep(50)
        }
      })()

      yield* Effect.promise(() => sleep(3000))
      const name = new URL(db.url).pathname.slice(1)
      let terminated = 0
      const until = Date.now() + 3000
      while (Date.now() < until) {
        const rows = yield* Effect.promise(() =>
          db.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}' AND pid <> pg_backend_pid()`)
        )
        terminated += rows.length
        yield* Effect.promise(() => sleep(100))
      }
      const backAt = Date.now()

      yield* Effect.promise(() => load.pushedAll)
      probing = false
      yield* Effect.promise(() => probeLoop)
      const settled = yield* Effect.promise(() => settle(db, 150_000))
      yield* Effect.promise(load.stop)
      const result = yield* Effect.promise(() => figures(db, receiver, stats))
      const workers = sdkFigures(sdk, backAt)
      // When the service created, and handed out, runs again after the fault (any worker).
      const after = new Date(backAt).toISOString()
      const [firsts] = yield* Effect.promise(() =>
        db.query<{ created: string | null; claimed: string | null }>(
          `SELECT (SELECT min(created_at) FROM runs WHERE created_at >= '${after}')::text AS created,
                  (SELECT min(claimed_at) FROM runs WHERE claimed_at >= '${after}')::text AS claimed`
        )
      )
      const sinceBack = (at: string | null | undefined) => at == null ? -1 : new Date(at).getTime() - backAt
      yield* Effect.logInfo("connections terminated: figures").pipe(
        Effect.annotateLogs({ ...result, ...workers, byStatus: JSON.stringify(result.byStatus), backendsTerminated: terminated, serviceRefusedForMsAfter: Math.max(0, lastRefusedAt - backAt),
          firstRunCreatedAfterMs: sinceBack(firsts?.created), firstRunClaimedAfterMs: sinceBack(firsts?.claimed), loadMaxLatencyMs: Math.round(stats.maxLatencyMs) })
      )

      expect(service.isRunning(), service.output()).toBe(true)
      expect(terminated).toBeGreaterThan(0)
      expect(settled, JSON.stringify(result)).toBe(true)
      expect(stats.serverErrors).toEqual([])
      expect(result).toMatchObject({ runsPushed: 450, ...nothingLostOrDuplicated })
      expect(result.deliveryRecords).toBe(result.webhookRuns)
      // The SDK workers, channel and REST: none exited, none was handed a run twice, each back soon (`resumeBoundMs`).
      expect(workers, sdk.map((w) => w.output()).join("\n")).toMatchObject({ sdkWorkerExits: 0, sdkHandedTwice: 0 })
      expect(workers.sdkRunsChannel).toBeGreaterThan(0)
      expect(workers.sdkRunsRest).toBeGreaterThan(0)
      for (const ms of workers.sdkResumeMs) expect(ms).toBeGreaterThanOrEqual(0)
      expect(workers.sdkSlowestResumeMs).toBeLessThanOrEqual(resumeBoundMs)
    }), { timeout: 420_000 })
})
