import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { sleep, startService, cleanupsAfterAll, faultLock } from "../support/Process.js"
import { expireLeases, figures, orphanLeases, settle, startLoad, Stats, nothingLostOrDuplicated } from "./load.js"
import { resumeBoundMs, sdkFigures } from "./sdkWorkers.js"
import { startFaultFleet } from "./faultFleet.js"

/**
 * Crash under load: the service process is killed with SIGKILL while runs
 * flow (producers pushing, workers completing, webhooks delivering) and is
 * started again on the same database and port. Nothing may be lost,
 * duplicated or left stuck. Beside the load's HTTP workers, SDK worker
 * processes take runs over the worker channel and over REST: none may exit,
 * and each takes runs again soon after the service is back (its reconnect
 * attempts are at most 5 s apart; the bound allows for a loaded machine).
 */

/** Runs the load pushes, 40 a second. */
const runs = 900

const cleanup = cleanupsAfterAll()

describe("crash under load", () => {
  it.scopedLive("kill -9 mid-load, restart: every run ends exactly once, one delivery record each, none handed out again", () =>
    Effect.gen(function*() {
      yield* faultLock
      const fleet = yield* Effect.promise(() => startFaultFleet(cleanup, "pts-crash-"))
      const { db, env, receiver, sdk } = fleet
      let service = fleet.service
      const stats = new Stats()
      const load = startLoad({
        tenant: fleet.httpWorkers,
        stats,
        // Runs keep coming for seconds after the restart, so every worker's return shows:
        // 22 s of load, about 12 s of it after the restart. With 15 s (600 runs), a
        // restart slowed by a loaded machine left one REST SDK worker no run to
        // take after it (CI: resumed in 0.5-1.3 s, the fourth never handed one).
        runs,
        runsPerSecond: 40,
        workerTarget: () => service.url,
        producerTargets: () => [service.url]
      })

      // Mid-load: a hard kill, so nothing is flushed or handed back.
      yield* Effect.promise(() => sleep(3500))
      const pushedBeforeCrash = stats.pushed.size
      service.kill("SIGKILL")
      const exit = yield* Effect.promise(() => service.exited)
      expect(exit.signal).toBe("SIGKILL")
      const orphans = yield* Effect.promise(() => orphanLeases(db))
      yield* Effect.promise(() => sleep(1000))
      service = yield* Effect.promise(() => startService(env, { port: service.port }))
      cleanup(() => service.stop())
      const backAt = Date.now()
      const expired = yield* Effect.promise(() => expireLeases(db, orphans))

      yield* Effect.promise(() => load.pushedAll)
      const settled = yield* Effect.promise(() => settle(db, 60_000))
      yield* Effect.promise(load.stop)
      const result = yield* Effect.promise(() => figures(db, receiver, stats))
      const workers = sdkFigures(sdk, backAt)
      yield* Effect.logInfo("crash under load: figures").pipe(
        Effect.annotateLogs({ ...result, ...workers, byStatus: JSON.stringify(result.byStatus), pushedBeforeCrash, faultsInjected: 1, orphanLeases: expired })
      )

      expect(settled, JSON.stringify(result)).toBe(true)
      expect(pushedBeforeCrash).toBeGreaterThan(0)
      expect(pushedBeforeCrash).toBeLessThan(runs)
      expect(result).toMatchObject({
        runsPushed: runs,
        ...nothingLostOrDuplicated,
        http5xx: 0
      })
      expect(result.deliveryRecords).toBe(result.webhookRuns)
      // The crash really cut work off: some requests found no server.
      expect(result.networkFailures).toBeGreaterThan(0)
      expect(stats.serverErrors).toEqual([])
      // The SDK workers, channel and REST: none exited, none was handed a run twice, each back soon (`resumeBoundMs`).
      expect(workers, sdk.map((w) => w.output()).join("\n")).toMatchObject({ sdkWorkerExits: 0, sdkHandedTwice: 0 })
      expect(workers.sdkRunsChannel).toBeGreaterThan(0)
      expect(workers.sdkRunsRest).toBeGreaterThan(0)
      for (const ms of workers.sdkResumeMs) expect(ms).toBeGreaterThanOrEqual(0)
      expect(workers.sdkSlowestResumeMs).toBeLessThanOrEqual(resumeBoundMs)
    }), { timeout: 420_000 })
})
