import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { cleanupsAfterAll, createDatabase, faultLock, request, sleep, startReceiver, startService, waitUntil } from "../support/Process.js"
import { setupTenant } from "../reliability/load.js"

/**
 * Flow control on two service processes on one Postgres database, one of
 * them killed with SIGKILL half-way: a trigger {limit: 3, perKey: 1}, 60 runs
 * over 6 keys requested through both, four workers polling both (then the
 * survivor). A sampler reads the places held every 20 ms: never more than 3
 * in all nor 2 of one key; every run ends.
 */

const cleanup = cleanupsAfterAll()
const RUNS = 60

describe("flow control across processes", () => {
  it.scopedLive("two processes, kill -9 of one mid-load: the limits hold throughout and every run ends", () =>
    Effect.gen(function*() {
      yield* faultLock
      const db = yield* Effect.promise(createDatabase)
      cleanup(db.drop)
      const receiver = yield* Effect.promise(startReceiver)
      cleanup(receiver.close)
      const env = {
        DATABASE_URL: db.url,
        DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "pts-flow-kill-")),
        CLAIM_TIMEOUT_SECONDS: "3",
        WORKER_OFFLINE_AFTER_SECONDS: "10"
      }
      const a = yield* Effect.promise(() => startService(env))
      cleanup(() => a.stop())
      const b = yield* Effect.promise(() => startService(env))
      cleanup(() => b.stop())
      const tenant = yield* Effect.promise(() => setupTenant(a.url, receiver.url, 4))
      const created = yield* Effect.promise(() =>
        request(a.url, "POST", `/api/v1/environments/${tenant.environmentId}/triggers`, {
          bearer: tenant.apiKey,
          body: { name: "limited", heartbeatTimeoutSeconds: 5, concurrency: { limit: 3, perKey: 1 } }
        })
      )
      expect(created.status).toBe(201)
      const triggerId = created.body.id as string
      const alive = () => [a, b].filter((s) => s.isRunning()).map((s) => s.url)

      let maxTotal = 0
      let maxPerKey = 0
      let sampling = true
      const sampler = (async () => {
        while (sampling) {
          const rows = await db.query<{ concurrency_key: string; n: number }>(`
            SELECT concurrency_key, count(*)::int AS n FROM runs
            WHERE trigger_id = '${triggerId}' AND worker_id IS NOT NULL AND ended_at IS NULL GROUP BY concurrency_key`)
          maxTotal = Math.max(maxTotal, rows.reduce((n, r) => n + Number(r.n), 0))
          maxPerKey = Math.max(maxPerKey, ...rows.map((r) => Number(r.n)), 0)
          await sleep(20)
        }
      })()

      let requested = 0
      const produce = async () => {
        while (requested < RUNS) {
          const i = requested++
          const targets = alive()
          const reply = await request(targets[i % targets.length]!, "POST", `/api/v1/triggers/${triggerId}/run`, {
            bearer: tenant.apiKey,
            body: { concurrencyKey: `k${i % 6}` }
          })
          // A request to the instance being killed may get no answer: ask the other.
          if (reply.status !== 201) requested--
          await sleep(30)
        }
      }
      let stop = false
      const work = async (w: number) => {
        const worker = tenant.workers[w]!
        for (let round = 0; !stop; round++) {
          const targets = alive()
          const base = targets[(round + w) % targets.length]!
          const polled = await request(base, "GET", `/api/v1/workers/${worker.id}/poll?wait=1&claim=true&max=5`, { bearer: worker.token })
          if (polled.status !== 200) {
            await sleep(100)
            continue
          }
          for (const run of polled.body.runs as Array<{ id: string }>) {
            const at = alive()[0]!
            await request(at, "POST", `/api/v1/workers/${worker.id}/runs/${run.id}/start`, { bearer: worker.token })
            await sleep(20 + Math.floor(Math.random() * 80))
            await request(alive()[0]!, "POST", `/api/v1/workers/${worker.id}/runs/${run.id}/complete`, {
              bearer: worker.token,
              body: { status: "succeeded" }
            })
          }
        }
      }
      const workers = tenant.workers.map((_, w) => work(w))
      const producing = produce()
      yield* Effect.promise(() => sleep(2500))
      a.kill("SIGKILL")
      yield* Effect.promise(() => a.exited)
      yield* Effect.promise(() => producing)
      const allEnded = yield* Effect.promise(() =>
        waitUntil(async () => {
          const [row] = await db.query<{ open: number; total: number }>(`
            SELECT count(*) FILTER (WHERE ended_at IS NULL)::int AS open, count(*)::int AS total FROM runs WHERE trigger_id = '${triggerId}'`)
          return Number(row!.total) >= RUNS && Number(row!.open) === 0
        }, 120_000, 500)
      )
      stop = true
      sampling = false
      yield* Effect.promise(() => Promise.all([sampler, ...workers]))
      expect(allEnded).toBe(true)
      expect(maxPerKey).toBeLessThanOrEqual(1)
      expect(maxTotal).toBeLessThanOrEqual(3)
      // Not vacuous: the limit was reached.
      expect(maxTotal).toBe(3)
    }), 240_000)
})
