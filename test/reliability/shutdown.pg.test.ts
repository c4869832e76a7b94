import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { createDatabase, request, sleep, startReceiver, startService, waitUntil, cleanupsAfterAll, faultLock } from "../support/Process.js"
import { setupTenant, Stats } from "./load.js"

/**
 * Graceful shutdown: SIGTERM while a long-poll is waiting and a webhook
 * delivery is in flight to a slow receiver. The service must stop accepting
 * new connections, answer the requests it already has, hand the delivery
 * back to the outbox (lease released, no record yet) and exit within
 * SHUTDOWN_TIMEOUT_SECONDS; the next start delivers it, once.
 */

const cleanup = cleanupsAfterAll()

describe("graceful shutdown", () => {
  it.scopedLive("SIGTERM: in-flight requests answered, new ones refused, delivery handed back, bounded exit", () =>
    Effect.gen(function*() {
      yield* faultLock
      const db = yield* Effect.promise(createDatabase)
      cleanup(db.drop)
      const receiver = yield* Effect.promise(startReceiver)
      cleanup(receiver.close)
      const env = {
        DATABASE_URL: db.url,
        DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "pts-shutdown-")),
        SHUTDOWN_TIMEOUT_SECONDS: "10"
      }
      const service = yield* Effect.promise(() => startService(env))
      cleanup(() => service.stop())
      const tenant = yield* Effect.promise(() => setupTenant(service.url, receiver.url, 2))
      const [busy, idle] = tenant.workers as [typeof tenant.workers[0], typeof tenant.workers[0]]
      const stats = new Stats()

      // A terminal run of the webhook trigger whose delivery hangs at the receiver.
      receiver.delayMs = 8000
      const run = stats.note(
        yield* Effect.promise(() => request(service.url, "POST", `/api/v1/triggers/${tenant.webhookTriggerId}/run`, { bearer: tenant.apiKey })),
        "run"
      )
      expect(run.status).toBe(201)
      const runId = run.body.id as string
      const claimed = yield* Effect.promise(() =>
        waitUntil(async () => {
          const poll = await request(service.url, "GET", `/api/v1/workers/${busy.id}/poll?wait=1&claim=true`, { bearer: busy.token })
          if (poll.body?.runs?.length > 0) {
            // Whichever worker got it completes it; the idle one must stay idle for its long-poll.
            return true
          }
          const other = await request(service.url, "GET", `/api/v1/workers/${idle.id}/poll?claim=true`, { bearer: idle.token })
          if (other.body?.runs?.length > 0) throw new Error("the run went to the worker meant to stay idle")
          return false
        }, 15_000)
      )
      expect(claimed).toBe(true)
      const completed = yield* Effect.promise(() =>
        request(service.url, "POST", `/api/v1/workers/${busy.id}/runs/${runId}/complete`, { bearer: busy.token, body: { status: "succeeded" } })
      )
      expect(completed.status).toBe(200)
      expect(yield* Effect.promise(() => waitUntil(() => receiver.posts() >= 1, 10_000, 50))).toBe(true)
      const [leased] = yield* Effect.promise(() => db.query(`SELECT lease_owner FROM webhook_outbox WHERE run_id = '${runId}'`))
      expect(leased?.lease_owner).not.toBeNull()

      // In flight at SIGTERM: a long-poll with nothing to hand out (it answers at once, empty).
      const longPoll = request(service.url, "GET", `/api/v1/workers/${idle.id}/poll?wait=4`, { bearer: idle.token, timeoutMs: 20_000 })
      yield* Effect.promise(() => sleep(300))
      const sigtermAt = Date.now()
      service.kill("SIGTERM")
      yield* Effect.promise(() => sleep(300))
      // New connections once shutdown began: refused or answered, never left hanging.
      const late = yield* Effect.promise(() => request(service.url, "GET", "/api/v1/health", { timeoutMs: 12_000, headers: { connection: "close" } }))
      const inFlight = yield* Effect.promise(() => longPoll)
      const exit = yield* Effect.promise(() => service.exited)
      const exitMs = exit.at - sigtermAt
      const [row] = yield* Effect.promise(() => db.query(`SELECT lease_owner, attempts FROM webhook_outbox WHERE run_id = '${runId}'`))
      const [records] = yield* Effect.promise(() => db.query<{ n: string }>(`SELECT count(*)::text AS n FROM webhook_deliveries WHERE run_id = '${runId}'`))
      yield* Effect.logInfo("graceful shutdown: figures").pipe(
        Effect.annotateLogs({
          exitMs,
          exitCode: String(exit.code),
          exitSignal: String(exit.signal),
          longPollStatus: inFlight.status,
          longPollMs: Math.round(inFlight.ms),
          lateRequest: late.status === 0 ? late.error : late.status,
          outboxLeaseOwner: String(row?.lease_owner),
          faultsInjected: 1
        })
      )

      expect(service.output()).not.toMatch(/level=(ERROR|FATAL)/)
      expect(inFlight.status, JSON.stringify(inFlight)).toBe(200)
      expect(inFlight.body).toEqual({ runs: [], cancelRequested: [] })
      expect(late.status === 0 || late.status === 503, JSON.stringify(late)).toBe(true)
      expect(exit.code).toBe(0)
      // Not held by the long-poll, keep-alive timeouts or the 10 s deadline.
      expect(exitMs).toBeLessThan(6_000)
      // Handed back: the row waits in the outbox, unleased, and nothing was recorded.
      expect(row).toBeDefined()
      expect(row!.lease_owner).toBeNull()
      expect(records!.n).toBe("0")

      // The next start delivers it, and records it once.
      receiver.delayMs = 0
      const again = yield* Effect.promise(() => startService(env, { port: service.port }))
      cleanup(() => again.stop())
      const delivered = yield* Effect.promise(() =>
        waitUntil(async () => (await db.query(`SELECT 1 FROM webhook_deliveries WHERE run_id = '${runId}'`)).length === 1, 20_000)
      )
      expect(delivered).toBe(true)
      const [record] = yield* Effect.promise(() => db.query(`SELECT outcome, status_code FROM webhook_deliveries WHERE run_id = '${runId}'`))
      expect(record).toMatchObject({ outcome: "delivered", status_code: 200 })
      expect(receiver.received.get(runId)).toEqual(["succeeded", "succeeded"])
      const stopped = yield* Effect.promise(() => again.stop())
      expect(stopped.code).toBe(0)
    }), { timeout: 420_000 })

  it.scopedLive("a request outliving SHUTDOWN_TIMEOUT_SECONDS does not hold the process: it exits at the deadline", () =>
    Effect.gen(function*() {
      yield* faultLock
      const db = yield* Effect.promise(createDatabase)
      cleanup(db.drop)
      const service = yield* Effect.promise(() =>
        startService({
          DATABASE_URL: db.url,
          DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "pts-shutdown-")),
          SHUTDOWN_TIMEOUT_SECONDS: "2"
        })
      )
      cleanup(() => service.stop())
      // A request whose client sends its headers and half its body, then
      // stalls: the server cannot answer it before it has the rest. (A
      // waiting long poll no longer serves here: it answers at once when the
      // shutdown begins.)
      const socket = net.connect(service.port, "127.0.0.1")
      yield* Effect.promise(() => new Promise<void>((resolve) => socket.once("connect", () => resolve())))
      const closed = new Promise<number>((resolve) => socket.once("close", () => resolve(Date.now())))
      socket.on("error", () => {})
      socket.write(
        "POST /api/v1/auth/login HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{\"email\":"
      )
      yield* Effect.promise(() => sleep(300))
      const sigtermAt = Date.now()
      service.kill("SIGTERM")
      const exit = yield* Effect.promise(() => service.exited)
      const exitMs = exit.at - sigtermAt
      const cutAt = yield* Effect.promise(() => closed)
      yield* Effect.logInfo("shutdown deadline: figures").pipe(
        Effect.annotateLogs({ exitMs, exitCode: String(exit.code), stalledRequestCutMs: cutAt - sigtermAt })
      )
      expect(exit.code).toBe(1)
      expect(exitMs).toBeGreaterThanOrEqual(1_900)
      expect(exitMs).toBeLessThan(4_000)
      // The stalled request did not hold the process: the deadline cut it.
      expect(cutAt - sigtermAt).toBeLessThan(10_000)
    }), { timeout: 420_000 })
})
