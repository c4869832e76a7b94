import * as http from "node:http"
import { insertWorkers } from "../lib/fleet.js"
import { expectStatus, makeClient } from "../lib/http.js"
import { rssMbOf, startService } from "../lib/server.js"
import { createTrigger, setupTenant } from "../lib/setup.js"
import { sleep, summarize, type Summary } from "../lib/stats.js"

export interface IdlePollsFigures {
  readonly workers: number
  readonly webConcurrency: string
  /** RSS of the service (all its processes) before the polls and while all of them wait; per process while they wait. */
  readonly rssIdleMb: number
  readonly rssHoldingMb: number
  readonly rssHoldingPerProcessMb: ReadonlyArray<number>
  /** From steady state on: polls answered 200 (empty at `wait` s, or with a run) and those that were not. */
  readonly answered: number
  readonly failed: number
  /** Why the others failed: error code or HTTP status, with counts. */
  readonly failures: Readonly<Record<string, number>>
  /** How long past the 30 s wait the empty answers came (from steady state on). */
  readonly lateMs: Summary
  /** While they all wait: a health check, and a run requested for a waiting worker until its poll answers with it. */
  readonly healthMs: Summary
  readonly dispatchMs: Summary
  readonly seconds: number
  /** Polls waiting at once, one wait after the start (all of them, when the service keeps up), and the most seen. */
  readonly waitingAtSteadyState: number
  readonly maxWaiting: number
}

const wait = 30

interface Answer {
  readonly worker: number
  readonly status: number
  readonly ms: number
  readonly runs: number
  readonly error?: string
}

/**
 * 10,000 registered workers (inserted in bulk, as a fleet that registered
 * over time), idle, each long-polling (`poll?wait=30`, again as soon as one
 * answers) on a keep-alive socket of its own, from this one client process:
 * the service's memory with that many waiting requests, and whether they
 * still answer on time (the empty answers at 30 s, a run for one of them at
 * once, a health check meanwhile).
 */
export const idlePolls = async (o: {
  readonly databaseUrl: string
  readonly workers: number
  readonly webConcurrency: string | undefined
  /** How long the fleet polls (at least two waits: ramp-up, then steady state). */
  readonly seconds: number
}): Promise<IdlePollsFigures> => {
  const service = await startService(
    { DATABASE_URL: o.databaseUrl, ...(o.webConcurrency ? { WEB_CONCURRENCY: o.webConcurrency } : {}) },
    { heapProbe: false }
  )
  const client = makeClient(service.url)
  // One socket per poll: each waits on a connection of its own, as separate workers would.
  const agent = new http.Agent({ keepAlive: true, maxSockets: o.workers + 16 })
  const url = new URL(service.url)
  try {
    const tenant = await setupTenant(client, service.url)
    const workers = await insertWorkers(o.databaseUrl, tenant.environmentId, o.workers, "idle")
    // A few triggers pinned to waiting workers: their runs must reach those polls at once.
    const pinned = await Promise.all([0, 1, 2, 3, 4].map((i) => createTrigger(client, tenant, { workerId: workers[i * 997 % o.workers]!.id })))
    const rssIdleMb = service.rssMb()

    const poll = (index: number) =>
      new Promise<Answer>((resolve) => {
        const t0 = performance.now()
        const req = http.request({
          host: url.hostname,
          port: url.port,
          path: `/api/v1/workers/${workers[index]!.id}/poll?wait=${wait}`,
          agent,
          headers: { authorization: `Bearer ${workers[index]!.token}` }
        }, (res) => {
          const chunks: Array<Buffer> = []
          res.on("data", (c: Buffer) => chunks.push(c))
          res.on("end", () => {
            let runs = 0
            try {
              runs = JSON.parse(Buffer.concat(chunks).toString("utf8")).runs?.length ?? 0
            } catch {
              // not JSON: counted by its status
            }
            resolve({ worker: index, status: res.statusCode ?? 0, ms: performance.now() - t0, runs })
          })
        })
        req.setTimeout((wait + 30) * 1000, () => req.destroy(new Error("client timeout")))
        req.on("error", (e: NodeJS.ErrnoException) => resolve({ worker: index, status: 0, ms: performance.now() - t0, runs: 0, error: e.code ?? e.message }))
        req.end()
      })

    // Each worker polls in a loop, as the SDK does: a new poll as soon as one answers. They
    // start spread over one wait (a fleet does not connect in one instant), so at steady state
    // all of them wait at once and about workers / 30 polls a second come and go.
    const answers: Array<Answer> = []
    let running = true
    let inFlight = 0
    let maxInFlight = 0
    const loop = async (index: number) => {
      await sleep((index / o.workers) * wait * 1000)
      while (running) {
        inFlight++
        maxInFlight = Math.max(maxInFlight, inFlight)
        const answer = await poll(index)
        inFlight--
        answers.push(answer)
        if (answer.status !== 200) await sleep(1000)
      }
    }
    const loops = workers.map((_, i) => loop(i))
    const started = performance.now()
    await sleep(wait * 1000 + 2000)
    const atSteadyState = answers.length
    const waitingAtSteadyState = inFlight

    const health: Array<number> = []
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now()
      expectStatus(await client.request("GET", "/api/v1/health"), 200, "health")
      health.push(performance.now() - t0)
      await sleep(100)
    }
    // A run for a waiting worker: the time until its poll answers with it.
    const dispatch: Array<number> = []
    for (const [n, triggerId] of pinned.entries()) {
      const index = n * 997 % o.workers
      const before = answers.length
      const t0 = performance.now()
      expectStatus(
        await client.request("POST", `/api/v1/triggers/${triggerId}/run`, { headers: { authorization: `Bearer ${tenant.apiKey}` } }),
        201,
        "run"
      )
      for (let i = 0; i < 3000; i++) {
        if (answers.slice(before).some((a) => a.worker === index && a.runs > 0)) break
        await sleep(5)
      }
      dispatch.push(performance.now() - t0)
    }
    const rssHoldingPerProcessMb = service.pids().map(rssMbOf)
    const rssHoldingMb = service.rssMb()
    await sleep(Math.max(0, o.seconds * 1000 - (performance.now() - started)))
    running = false
    const steady = answers.slice(atSteadyState)
    const empty = steady.filter((a) => a.status === 200 && a.runs === 0)
    void Promise.all(loops)
    return {
      workers: o.workers,
      webConcurrency: o.webConcurrency ?? "default",
      rssIdleMb,
      rssHoldingMb,
      rssHoldingPerProcessMb,
      seconds: o.seconds,
      waitingAtSteadyState,
      maxWaiting: maxInFlight,
      answered: steady.filter((a) => a.status === 200).length,
      failed: steady.filter((a) => a.status !== 200).length,
      failures: steady.reduce<Record<string, number>>((counts, a) => {
        if (a.status === 200) return counts
        const key = a.error ?? String(a.status)
        counts[key] = (counts[key] ?? 0) + 1
        return counts
      }, {}),
      lateMs: summarize(empty.map((a) => Math.max(0, a.ms - wait * 1000))),
      healthMs: summarize(health),
      dispatchMs: summarize(dispatch)
    }
  } finally {
    agent.destroy()
    client.close()
    await service.stop()
  }
}
