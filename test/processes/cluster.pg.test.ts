import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { cleanupsAfterAll, createDatabase, faultLock, sleep, startService, waitUntil } from "../support/Process.js"
import { parse, value } from "../observability/exposition.js"
import { setupTenant } from "../reliability/load.js"
import { childPids, fresh, pidsServing } from "./support.js"

/**
 * `WEB_CONCURRENCY=2` on a Postgres database: one `node dist/main.js` is a
 * primary and two service processes sharing its port. Each test starts its
 * own, as `npm start` would, and looks at the real processes.
 */

const cleanup = cleanupsAfterAll()

const start = (env: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const db = yield* Effect.promise(createDatabase)
    cleanup(db.drop)
    const service = yield* Effect.promise(() =>
      startService({
        DATABASE_URL: db.url,
        DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "pts-processes-")),
        WEB_CONCURRENCY: "2",
        LOG_LEVEL: "Info",
        ...env
      })
    )
    cleanup(() => service.stop())
    // Ready when one process answers; wait for the second to be up too.
    const pids = yield* Effect.promise(async () => {
      let pids: Array<number> = []
      await waitUntil(() => (pids = childPids(service.pid)).length === 2 && service.output().split("Listening on").length === 3, 60_000)
      return pids
    })
    expect(pids, service.output()).toHaveLength(2)
    return { db, service, pids }
  })

/** `n` calls of `f`, each after the previous one answered. */
const inTurn = async <A>(n: number, f: () => Promise<A>): Promise<Array<A>> => {
  const out: Array<A> = []
  for (let i = 0; i < n; i++) out.push(await f())
  return out
}

describe("several service processes (WEB_CONCURRENCY)", () => {
  it.scopedLive("two processes serve one port; a run goes end to end; /metrics from either counts both", () =>
    Effect.gen(function*() {
      const { pids, service } = yield* start()
      expect(pids).not.toContain(service.pid)

      // One after the other: the primary hands a new connection to the next process
      // that has taken its last one; twenty at once all went to one process on a
      // loaded CI machine (the other still busy taking its first).
      const health = yield* Effect.promise(() => inTurn(20, () => fresh(service.url, "GET", "/api/v1/health")))
      expect(health.map((r) => r.status)).toEqual(Array(20).fill(200))
      expect(pidsServing(service.output(), "/api/v1/health")).toEqual(new Set(pids))

      // A lifecycle, one call per step, each on a new connection (so its steps land on either process).
      const tenant = yield* Effect.promise(() => setupTenant(service.url, "http://127.0.0.1:9/hook", 1))
      const worker = tenant.workers[0]!
      const runs = 6
      for (let i = 0; i < runs; i++) {
        const created = yield* Effect.promise(() =>
          fresh(service.url, "POST", `/api/v1/triggers/${tenant.plainTriggerId}/run`, { bearer: tenant.apiKey })
        )
        expect(created.status, JSON.stringify(created.body)).toBe(201)
        const runId = created.body.id as string
        const polled = yield* Effect.promise(() =>
          fresh(service.url, "GET", `/api/v1/workers/${worker.id}/poll?wait=5&claim=true`, { bearer: worker.token })
        )
        expect(polled.body.runs.map((r: { id: string }) => r.id)).toEqual([runId])
        const started = yield* Effect.promise(() =>
          fresh(service.url, "POST", `/api/v1/workers/${worker.id}/runs/${runId}/start`, { bearer: worker.token })
        )
        expect(started.status, JSON.stringify(started.body)).toBe(200)
        const completed = yield* Effect.promise(() =>
          fresh(service.url, "POST", `/api/v1/workers/${worker.id}/runs/${runId}/complete`, {
            bearer: worker.token,
            body: { status: "succeeded" }
          })
        )
        expect(completed.status, JSON.stringify(completed.body)).toBe(200)
        const read = yield* Effect.promise(() => fresh(service.url, "GET", `/api/v1/runs/${runId}`, { bearer: tenant.apiKey }))
        expect(read.body.status).toBe("succeeded")
      }
      expect(pidsServing(service.output(), "/api/v1/triggers/:id/run")).toEqual(new Set(pids))

      // Scrapes land on either process; each answers for both.
      const healthAnswered = service.output().split("\n").filter((l) =>
        l.includes(`message="http request"`) && l.includes("route=/api/v1/health") && l.includes("status=200")
      ).length
      expect(healthAnswered).toBeGreaterThanOrEqual(20)
      const scrapes = yield* Effect.promise(() =>
        inTurn(6, () => fresh(service.url, "GET", "/metrics").then((r) => parse(r.body as string)))
      )
      expect(pidsServing(service.output(), "/metrics")).toEqual(new Set(pids))
      for (const scrape of scrapes) {
        expect(value(scrape, "pts_runs_requested_total", { environment: tenant.environmentId })).toBe(runs)
        expect(value(scrape, "pts_runs_ended_total", { environment: tenant.environmentId, status: "succeeded" })).toBe(runs)
        // Every health check either process logged (the test's 20 and the readiness wait's).
        expect(value(scrape, "pts_http_requests_total", { method: "GET", route: "/api/v1/health", status: "200" })).toBe(healthAnswered)
        // Each process's pool (max 20) is part of the instance's.
        expect(value(scrape, "pts_db_pool_connections", { state: "max" })).toBe(40)
        // Read from the database: the same in every process, reported once, not summed.
        expect(value(scrape, "pts_runs_queued", { environment: tenant.environmentId })).toBe(0)
        // Node.js and process series per process (memory or lag of two processes do not add up): each slot and the primary.
        const rss = scrape.samples.filter((s) => s.name === "process_resident_memory_bytes")
        expect(rss.map((s) => s.labels.process).sort()).toEqual(["1", "2", "primary"])
        for (const sample of rss) expect(sample.value).toBeGreaterThan(10 * 1024 * 1024)
        expect(scrape.samples.filter((s) => s.name === "nodejs_eventloop_lag_seconds").map((s) => s.labels.process).sort()).toEqual(["1", "2", "primary"])
      }
    }), { timeout: 300_000 })

  it.scopedLive("SIGTERM drains every process: in-flight requests finish, the primary exits 0 after them", () =>
    Effect.gen(function*() {
      const { pids, service } = yield* start({ SHUTDOWN_DELAY_SECONDS: "1" })
      const tenant = yield* Effect.promise(() => setupTenant(service.url, "http://127.0.0.1:9/hook", 4))
      // Long-polls on connections of their own: in flight in both processes at the signal.
      const polls = tenant.workers.map((w) =>
        fresh(service.url, "GET", `/api/v1/workers/${w.id}/poll?wait=4`, { bearer: w.token, timeoutMs: 20_000 })
      )
      yield* Effect.promise(() => sleep(500))
      service.kill("SIGTERM")
      const answered = yield* Effect.promise(() => Promise.all(polls))
      const exit = yield* Effect.promise(() => service.exited)
      const output = service.output()
      expect(answered.map((r) => r.status), output).toEqual([200, 200, 200, 200])
      expect(pidsServing(output, "/api/v1/workers/:id/poll")).toEqual(new Set(pids))
      expect(exit.code, output).toBe(0)
      // Each process kept its readiness at 503 for the delay.
      const draining = output.split("\n").filter((l) => l.includes(`message="draining: readiness answers 503"`))
      expect(new Set(draining.map((l) => Number(/\bpid=(\d+)/.exec(l)?.[1])))).toEqual(new Set(pids))
      expect(pids.filter((pid) => childPids(service.pid).includes(pid) || fs.existsSync(`/proc/${pid}`))).toEqual([])
      expect(output).not.toMatch(/level=(ERROR|FATAL)/)
    }), { timeout: 300_000 })

  it.scopedLive("a terminal's Ctrl-C (SIGINT to every process) and a second signal still drain once and exit 0", () =>
    Effect.gen(function*() {
      const { pids, service } = yield* start({ SHUTDOWN_DELAY_SECONDS: "1" })
      const tenant = yield* Effect.promise(() => setupTenant(service.url, "http://127.0.0.1:9/hook", 2))
      const polls = tenant.workers.map((w) =>
        fresh(service.url, "GET", `/api/v1/workers/${w.id}/poll?wait=3`, { bearer: w.token, timeoutMs: 20_000 })
      )
      yield* Effect.promise(() => sleep(500))
      // The terminal signals the whole group; the primary passes SIGTERM on as well; then someone insists.
      for (const pid of [service.pid, ...pids]) process.kill(pid, "SIGINT")
      yield* Effect.promise(() => sleep(300))
      service.kill("SIGTERM")
      const answered = yield* Effect.promise(() => Promise.all(polls))
      const exit = yield* Effect.promise(() => service.exited)
      const output = service.output()
      expect(answered.map((r) => r.status), output).toEqual([200, 200])
      expect(exit.code, output).toBe(0)
      const draining = output.split("\n").filter((l) => l.includes(`message="draining: readiness answers 503"`))
      expect(draining.map((l) => Number(/\bpid=(\d+)/.exec(l)?.[1])).sort(), output).toEqual([...pids].sort())
      expect(output).not.toMatch(/level=(ERROR|FATAL)/)
    }), { timeout: 300_000 })

  it.scopedLive("a port already taken: the processes cannot serve, so the start fails instead of restarting them", () =>
    Effect.gen(function*() {
      // Holds the port; the readiness checks that reach it are dropped at once.
      const blocker = net.createServer((socket) => socket.destroy())
      yield* Effect.acquireRelease(
        Effect.promise(() => new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", () => resolve()))),
        () => Effect.promise(() => new Promise<void>((resolve) => blocker.close(() => resolve())))
      )
      const port = (blocker.address() as net.AddressInfo).port
      const db = yield* Effect.promise(createDatabase)
      cleanup(db.drop)
      const failed = yield* Effect.promise(() =>
        startService({ DATABASE_URL: db.url, WEB_CONCURRENCY: "2", LOG_LEVEL: "Info" }, { port, readyTimeoutMs: 60_000 }).then(
          (service) => {
            cleanup(() => service.stop())
            return "started"
          },
          (error: Error) => error.message
        )
      )
      expect(failed).toMatch(/^service exited before it was ready \(1\)/)
      expect(failed).toContain("a service process ended before the service started")
      expect(failed).toContain("EADDRINUSE")
    }), { timeout: 300_000 })

  it.scopedLive("a service process that dies is replaced; the service keeps answering", () =>
    Effect.gen(function*() {
      yield* faultLock
      const { pids, service } = yield* start()
      const [victim, survivor] = pids as [number, number]
      // Requests answered by both, counted by a scrape (which gathers every process's series).
      yield* Effect.promise(() => Promise.all(Array.from({ length: 10 }, () => fresh(service.url, "GET", "/api/v1/health"))))
      const healthCount = (text: string) => value(parse(text), "pts_http_requests_total", { method: "GET", route: "/api/v1/health", status: "200" })
      const before = healthCount((yield* Effect.promise(() => fresh(service.url, "GET", "/metrics"))).body as string)
      process.kill(victim, "SIGKILL")
      // Connections handed to it before the primary saw it die are lost with it (as with any crash);
      // from then on, until its replacement is up, the other process answers every new connection.
      const noticed = yield* Effect.promise(() =>
        waitUntil(() => new RegExp(`message="service process ended; starting another".*workerPid=${victim}`).test(service.output()), 10_000, 20)
      )
      expect(noticed, service.output()).toBe(true)
      const during = yield* Effect.promise(() => Promise.all(Array.from({ length: 5 }, () => fresh(service.url, "GET", "/api/v1/health"))))
      expect(during.map((r) => r.status)).toEqual(Array(5).fill(200))
      let now: Array<number> = []
      const replaced = yield* Effect.promise(() =>
        waitUntil(() => (now = childPids(service.pid)).length === 2 && !now.includes(victim), 30_000)
      )
      expect(replaced, service.output()).toBe(true)
      expect(now).toContain(survivor)
      const replacement = now.find((pid) => pid !== survivor)!
      // The replacement serves: new connections reach it.
      const served = yield* Effect.promise(() =>
        waitUntil(async () => {
          await fresh(service.url, "GET", "/api/v1/health")
          return pidsServing(service.output(), "/api/v1/health").has(replacement)
        }, 30_000, 100)
      )
      expect(served, service.output()).toBe(true)
      expect(service.isRunning()).toBe(true)
      // The dead process's counts stay in the totals: the counter did not go down.
      const after = healthCount((yield* Effect.promise(() => fresh(service.url, "GET", "/metrics"))).body as string)
      expect(after).toBeGreaterThan(before)
      const stopped = yield* Effect.promise(() => service.stop())
      expect(stopped.code).toBe(0)
    }), { timeout: 300_000 })
})

