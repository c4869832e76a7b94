import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Redacted from "effect/Redacted"
import { runWorker } from "../../src/WorkerSdk/WorkerSdk.js"
import { cleanupsAfterAll, databaseAndReceiver, faultLock, sleep, startService, type TestDatabase, waitUntil } from "../support/Process.js"
import { expireLeases, figures, nothingLostOrDuplicated, orphanLeases, settle, setupTenant, startLoad, Stats, type Tenant } from "../reliability/load.js"
import { type Exposition, parse } from "../observability/exposition.js"
import { startFailoverProxy } from "./failover.js"
import { nodeWebSocket } from "./support.js"

/**
 * The worker channel on real service processes sharing one Postgres
 * database: SDK workers connected over the channel (`transport: "channel"`,
 * the `ws` client) to one instance or the other, runs requested on either.
 * Every run must end exactly once, with one webhook POST, none lost; a
 * killed instance's workers reconnect to the survivor and finish what they hold.
 */

const cleanup = cleanupsAfterAll()

const setup = async (dataDirPrefix: string) => {
  const { db, env, receiver } = await databaseAndReceiver(cleanup, dataDirPrefix, {
    CLAIM_TIMEOUT_SECONDS: "3",
    WORKER_OFFLINE_AFTER_SECONDS: "6"
  })
  const a = await startService(env)
  cleanup(() => a.stop())
  const b = await startService(env)
  cleanup(() => b.stop())
  return { db, receiver, a, b }
}

/** What the workers' handlers saw: how often each run was handed to one, and when. */
class Handled {
  readonly calls = new Map<string, number>()
  readonly inHand = new Set<string>()
  add(runId: string) {
    this.calls.set(runId, (this.calls.get(runId) ?? 0) + 1)
    this.inHand.add(runId)
  }
  twice() {
    return [...this.calls].filter(([, n]) => n > 1).map(([id]) => id)
  }
}

/**
 * Worker `i` of the tenant runs the SDK over the channel against `baseUrl(i)`
 * for the enclosing scope. The handler succeeds with the run id as stdout
 * after `work(runId)`.
 */
const channelWorkers = (
  tenant: Tenant,
  baseUrl: (worker: number) => string,
  handled: Handled,
  work: (runId: string) => Effect.Effect<void>
) =>
  Effect.forEach(tenant.workers, (worker, i) =>
    runWorker({
      baseUrl: baseUrl(i),
      credentials: { workerId: worker.id, token: Redacted.make(worker.token) },
      transport: "channel",
      webSocket: nodeWebSocket,
      concurrency: 3,
      shutdownGracePeriod: "1 second",
      handler: (run) =>
        Effect.sync(() => handled.add(run.id)).pipe(
          Effect.zipRight(work(run.id)),
          Effect.ensuring(Effect.sync(() => handled.inHand.delete(run.id))),
          Effect.as({ status: "succeeded" as const, stdout: run.id })
        )
    }).pipe(Effect.provide(FetchHttpClient.layer), Logger.withMinimumLogLevel(LogLevel.Warning), Effect.forkScoped), { discard: true })

const terminal = "('succeeded', 'failed', 'timed_out', 'cancelled')"

/** Runs with more than one terminal transition recorded (must be none). */
const endedTwice = async (db: TestDatabase) =>
  Number((await db.query<{ n: string }>(
    `SELECT count(*)::text AS n FROM (SELECT run_id FROM run_events WHERE status IN ${terminal} GROUP BY run_id HAVING count(*) > 1) d`
  ))[0]!.n)

/** Runs whose stdout is not their own id though they succeeded: a result recorded on the wrong run (must be none). */
const misrecorded = async (db: TestDatabase) =>
  Number((await db.query<{ n: string }>(
    `SELECT count(*)::text AS n FROM runs WHERE status = 'succeeded' AND short_message IS DISTINCT FROM id::text`
  ))[0]!.n)

const scrape = async (baseUrl: string) => parse(await (await fetch(`${baseUrl}/metrics`)).text())

/** The REST worker routes (poll, claim, start, heartbeat, complete) this instance answered, with their counts. */
const restWorkerSteps = (exposition: Exposition) =>
  exposition.samples
    .filter((s) => s.name === "pts_http_requests_total" && /^\/api\/v1\/workers\/:id\//.test(s.labels.route ?? "") && s.value > 0)
    .map((s) => `${s.labels.method} ${s.labels.route} ${s.labels.status}: ${s.value}`)

describe("worker channel on two instances (Postgres)", () => {
  it.scopedLive("channel workers on either instance, runs requested on either: each run ends once, one webhook POST each, none lost", () =>
    Effect.gen(function*() {
      const { db, receiver, a, b } = yield* Effect.promise(() => setup("pts-channel-two-"))
      const tenant = yield* Effect.promise(() => setupTenant(a.url, receiver.url, 4))
      const handled = new Handled()
      // Workers 0 and 2 on A, 1 and 3 on B: a run requested on A is often taken by a worker on B.
      const onA = (i: number) => i % 2 === 0
      yield* channelWorkers(tenant, (i) => (onA(i) ? a.url : b.url), handled, () => Effect.sleep(`${20 + Math.floor(Math.random() * 80)} millis`))
      const stats = new Stats()
      // Only the producer: the load's REST workers have no instance to talk to.
      const load = startLoad({ tenant, stats, runs: 200, runsPerSecond: 40, workerTarget: () => undefined, producerTargets: () => [a.url, b.url] })

      yield* Effect.promise(() => load.pushedAll)
      const settled = yield* Effect.promise(() => settle(db, 90_000))
      yield* Effect.promise(load.stop)
      const result = yield* Effect.promise(() => figures(db, receiver, stats))
      yield* Effect.logInfo("channel on two instances: figures").pipe(Effect.annotateLogs({ ...result, byStatus: JSON.stringify(result.byStatus) }))

      expect(settled, JSON.stringify(result)).toBe(true)
      expect(result).toMatchObject({ runsPushed: 200, runsInDatabase: 200, byStatus: { succeeded: 200 }, ...nothingLostOrDuplicated, http5xx: 0 })
      expect(result.receiverDuplicatePosts).toBe(0)
      expect(result.deliveryRecords).toBe(result.webhookRuns)
      expect(handled.calls.size).toBe(200)
      expect(handled.twice()).toEqual([])
      expect(yield* Effect.promise(() => endedTwice(db))).toBe(0)
      expect(yield* Effect.promise(() => misrecorded(db))).toBe(0)
      // Served over the channel only: neither instance answered a REST poll or run step (a run handed
      // to a waiting channel poll at creation is claimed by that statement and started by the next,
      // so claimed_at = started_at would not tell the transports apart; the request counters do).
      const restSteps = yield* Effect.promise(() => Promise.all([a, b].map(async (instance) => restWorkerSteps(await scrape(instance.url)))))
      expect(restSteps).toEqual([[], []])
      const rows = yield* Effect.promise(() => db.query<{ worker_id: string }>(`SELECT worker_id FROM runs`))
      const servedBy = new Set(rows.map((row) => tenant.workers.findIndex((w) => w.id === row.worker_id)))
      expect([...servedBy].some(onA)).toBe(true)
      expect([...servedBy].some((i) => !onA(i))).toBe(true)
    }), { timeout: 420_000 })

  it.scopedLive("kill -9 of the instance the channel workers are on, mid-run: they reconnect to the survivor, finish what they hold, nothing ends twice or is lost", () =>
    Effect.gen(function*() {
      yield* faultLock
      const { db, receiver, a, b } = yield* Effect.promise(() => setup("pts-channel-kill-"))
      // The workers' one address: A while it lives, then B.
      const proxy = yield* Effect.promise(() => startFailoverProxy([a.port, b.port]))
      cleanup(proxy.close)
      const tenant = yield* Effect.promise(() => setupTenant(b.url, receiver.url, 4))
      const handled = new Handled()
      let killedAt: number | undefined
      const heldAcrossKill = new Set<string>()
      // A run in hand at the kill lasts until 6 s after it: past its 5 s heartbeat timeout,
      // so only heartbeats sent through the new connection (to B) keep it alive.
      const work = (runId: string) =>
        Effect.gen(function*() {
          const started = Date.now()
          yield* Effect.sleep(`${300 + Math.floor(Math.random() * 900)} millis`)
          if (killedAt !== undefined && started < killedAt) {
            heldAcrossKill.add(runId)
            yield* Effect.sleep(Math.max(0, killedAt + 6000 - Date.now()))
          }
        })
      yield* channelWorkers(tenant, () => proxy.url, handled, work)
      const stats = new Stats()
      let aAlive = true
      const load = startLoad({
        tenant,
        stats,
        runs: 120,
        runsPerSecond: 12,
        workerTarget: () => undefined,
        producerTargets: () => (aAlive ? [a.url, b.url] : [b.url])
      })

      // Mid-run: once the workers hold runs (on a loaded machine the first ones may come later than 4 s in).
      yield* Effect.promise(() => sleep(4000))
      expect(yield* Effect.promise(() => waitUntil(() => handled.inHand.size >= 2, 60_000, 20)), "runs in hand before the kill").toBe(true)
      const inHand = handled.inHand.size
      killedAt = Date.now()
      a.kill("SIGKILL")
      aAlive = false
      const exit = yield* Effect.promise(() => a.exited)
      expect(exit.signal).toBe("SIGKILL")
      // A's webhook leases would otherwise sit out their 2-minute duration.
      const orphans = yield* Effect.promise(() => orphanLeases(db, 2000))
      yield* Effect.promise(() => expireLeases(db, orphans))

      yield* Effect.promise(() => load.pushedAll)
      const settled = yield* Effect.promise(() => settle(db, 120_000))
      yield* Effect.promise(load.stop)
      const result = yield* Effect.promise(() => figures(db, receiver, stats))
      const held = [...heldAcrossKill].sort()
      const heldRows = held.length === 0 ? [] : yield* Effect.promise(() =>
        db.query<{ id: string; status: string; short_message: string | null; beat_after_kill: boolean }>(
          `SELECT id, status, short_message, last_heartbeat_at > to_timestamp(${killedAt! / 1000}) AS beat_after_kill
             FROM runs WHERE id IN (${held.map((id) => `'${id}'`).join(",")}) ORDER BY id::text`
        ))
      yield* Effect.logInfo("channel kill -9: figures").pipe(
        Effect.annotateLogs({ ...result, byStatus: JSON.stringify(result.byStatus), inHandAtKill: inHand, heldAcrossKill: held.length, forwarded: JSON.stringify([...proxy.forwarded]) })
      )

      expect(b.isRunning(), b.output()).toBe(true)
      expect(settled, JSON.stringify(result)).toBe(true)
      expect(result).toMatchObject({ runsPushed: 120, ...nothingLostOrDuplicated, http5xx: 0 })
      expect(result.deliveryRecords).toBe(result.webhookRuns)
      // The workers were on A, then reconnected through the same address to B.
      expect(proxy.forwarded.get(a.port)).toBeGreaterThan(0)
      expect(proxy.forwarded.get(b.port)).toBeGreaterThan(0)
      // Runs in hand at the kill were heartbeated through B past their timeout and completed once, as the worker reported.
      expect(held.length).toBeGreaterThan(0)
      expect(heldRows.map((row) => ({ ...row }))).toEqual(held.map((id) => expect.objectContaining({ id, status: "succeeded", short_message: id, beat_after_kill: true })))
      expect(handled.twice()).toEqual([])
      expect(yield* Effect.promise(() => endedTwice(db))).toBe(0)
      expect(yield* Effect.promise(() => misrecorded(db))).toBe(0)
      // A run the workers never got (pushed on a connection the kill cut) ended timed_out (infra), retried where the trigger allows.
      const unhandled = yield* Effect.promise(() => db.query<{ id: string; status: string; fault_class: string }>(`SELECT id::text, status, fault_class FROM runs`))
      for (const row of unhandled.filter((r) => !handled.calls.has(r.id))) {
        expect(row).toMatchObject({ status: "timed_out", fault_class: "infra" })
      }
    }), { timeout: 420_000 })
})
