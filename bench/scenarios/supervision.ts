import type { Client } from "../lib/http.js"
import type { Service } from "../lib/server.js"
import type { Tenant, Worker } from "../lib/setup.js"
import { sleep, summarize, type Summary } from "../lib/stats.js"

export interface SupervisionFigures {
  readonly runs: number
  /** Runs whose second heartbeat was answered 200 (still running then). */
  readonly alive: number
  /** Runs still `running` when RSS and heap were read (all of them, unless the machine was too slow to start them within the timeout). */
  readonly runningAtReading: number
  readonly rssIdleMb: number
  /** The highest RSS while runs were created, started and heartbeated (garbage included). */
  readonly rssPeakMb: number
  readonly rssSupervisingMb: number
  readonly rssDeltaMb: number
  /** Heap in use after a full GC: idle, supervising, and the difference (what supervision holds). */
  readonly heapIdleMb: number
  readonly heapSupervisingMb: number
  readonly heapDeltaMb: number
  readonly heartbeat: Summary
  readonly timedOut: number
  /** How late `timed_out` landed after the stored deadline (ms). */
  readonly lateness: Summary
}

const pool = async <A>(items: ReadonlyArray<A>, concurrency: number, f: (a: A) => Promise<void>) => {
  let next = 0
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < items.length) await f(items[next++]!)
  }))
}

/**
 * RSS once V8 has returned what a full GC freed: the lowest reading over the
 * 15 s after it. Read at once after the GC, RSS still counted the freed pages
 * (526 MB; 411 two seconds later; 337 once V8's memory reducer had run, 8 s
 * after, in one run; within 10 s the reducer ran in two runs of three).
 */
const settledRss = async (service: Service) => {
  let min = service.rssMb()
  for (let i = 0; i < 30; i++) {
    await sleep(500)
    min = Math.min(min, service.rssMb())
  }
  return min
}

/** The highest RSS seen (sampled every 100 ms) until `stop`. */
const rssPeak = (service: Service) => {
  let max = 0
  const timer = setInterval(() => {
    max = Math.max(max, service.rssMb())
  }, 100)
  return {
    stop: () => {
      clearInterval(timer)
      return max
    }
  }
}

const countRunning = async (client: Client, auth: Record<string, string>, triggerId: string) => {
  let count = 0
  let cursor: string | null = null
  do {
    const res = await client.request(
      "GET",
      `/api/v1/triggers/${triggerId}/runs?status=running&limit=200${cursor ? `&cursor=${cursor}` : ""}`,
      { headers: auth }
    )
    count += (res.body.items as Array<unknown>).length
    cursor = res.body.nextCursor
  } while (cursor)
  return count
}

/**
 * N runs running at once, heartbeating: the service's RSS beside idle, the
 * heartbeat latency, then heartbeats stop and every run must end `timed_out`
 * close to its deadline (last heartbeat + heartbeatTimeoutSeconds).
 */
export const supervision = async (o: {
  client: Client
  service: Service
  tenant: Tenant
  workers: ReadonlyArray<Worker>
  runs: number
  heartbeatTimeoutSeconds: number
  createTrigger: (fields: Record<string, unknown>) => Promise<string>
}): Promise<SupervisionFigures> => {
  // Both readings follow a full GC (the heap probe runs one), so RSS compares
  // what the service holds rather than what garbage it has not collected yet.
  const heapIdleMb = await o.service.heapMb()
  const rssIdleMb = await settledRss(o.service)
  const peak = rssPeak(o.service)
  const triggerId = await o.createTrigger({ heartbeatTimeoutSeconds: o.heartbeatTimeoutSeconds, timeoutSeconds: 86400 })
  const auth = { authorization: `Bearer ${o.tenant.apiKey}` }
  await pool(Array.from({ length: o.runs }), 32, async () => {
    await o.client.request("POST", `/api/v1/triggers/${triggerId}/run`, { headers: auth })
  })
  // Claim in batches and start every run.
  const running: Array<{ worker: Worker; runId: string }> = []
  const deadline = Date.now() + 120_000
  while (running.length < o.runs && Date.now() < deadline) {
    await Promise.all(o.workers.map(async (worker) => {
      const res = await o.client.request("GET", `/api/v1/workers/${worker.id}/poll?wait=1&claim=true&max=100`, {
        headers: { authorization: `Bearer ${worker.token}` }
      })
      const runs = (res.body?.runs ?? []) as Array<any>
      await pool(runs, 16, async (run) => {
        await o.client.request("POST", `/api/v1/workers/${worker.id}/runs/${run.id}/start`, {
          headers: { authorization: `Bearer ${worker.token}` }
        })
        running.push({ worker, runId: run.id })
      })
    }))
  }
  // Two heartbeat rounds over every run; the second one's answers say how
  // many runs are still running (a run that timed out before it answers 409).
  const heartbeats: Array<number> = []
  let alive = 0
  for (let round = 0; round < 2; round++) {
    alive = 0
    await pool(running, 64, async ({ runId, worker }) => {
      const t0 = performance.now()
      const res = await o.client.request("POST", `/api/v1/workers/${worker.id}/runs/${runId}/heartbeat`, {
        headers: { authorization: `Bearer ${worker.token}` }
      })
      heartbeats.push(performance.now() - t0)
      if (res.status === 200) alive++
    })
  }
  const lastHeartbeat = Date.now()
  const rssPeakMb = Math.max(peak.stop(), o.service.rssMb())
  // Read a few seconds after the burst of 20,000 heartbeat requests, after a
  // full GC (the heap probe runs one), once V8 has handed the freed pages back.
  await sleep(Math.min(4000, o.heartbeatTimeoutSeconds * 100))
  const heapSupervisingMb = await o.service.heapMb()
  const rssSupervisingMb = await settledRss(o.service)
  const runningAtReading = await countRunning(o.client, auth, triggerId)
  // Heartbeats stop: wait for every run to time out, then read the runs back.
  await sleep(Math.max(0, lastHeartbeat + o.heartbeatTimeoutSeconds * 1000 + 3000 - Date.now()))
  const lateness: Array<number> = []
  let timedOut = 0
  for (let attempt = 0; attempt < 30; attempt++) {
    lateness.length = 0
    timedOut = 0
    let cursor: string | null = null
    do {
      const res = await o.client.request(
        "GET",
        `/api/v1/triggers/${triggerId}/runs?limit=200${cursor ? `&cursor=${cursor}` : ""}`,
        { headers: auth }
      )
      for (const run of res.body.items as Array<any>) {
        if (run.status !== "timed_out") continue
        timedOut++
        const last = Date.parse(run.lastHeartbeatAt ?? run.startedAt ?? run.claimedAt)
        lateness.push(Date.parse(run.endedAt) - (last + o.heartbeatTimeoutSeconds * 1000))
      }
      cursor = res.body.nextCursor
    } while (cursor)
    if (timedOut >= running.length) break
    await sleep(1000)
  }
  return {
    runs: running.length,
    alive,
    runningAtReading,
    rssIdleMb,
    rssPeakMb,
    rssSupervisingMb,
    rssDeltaMb: Math.round((rssSupervisingMb - rssIdleMb) * 10) / 10,
    heapIdleMb,
    heapSupervisingMb,
    heapDeltaMb: Math.round((heapSupervisingMb - heapIdleMb) * 10) / 10,
    heartbeat: summarize(heartbeats),
    timedOut,
    lateness: summarize(lateness)
  }
}
