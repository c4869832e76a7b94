import type { Client } from "../lib/http.js"
import type { Service } from "../lib/server.js"
import type { Tenant, Worker } from "../lib/setup.js"
import { sleep, summarize, type Summary } from "../lib/stats.js"

export interface SupervisionFigures {
  readonly runs: number
  readonly rssIdleMb: number
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
  const rssIdleMb = o.service.rssMb()
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
  // Two heartbeat rounds over every run.
  const heartbeats: Array<number> = []
  for (let round = 0; round < 2; round++) {
    await pool(running, 64, async ({ runId, worker }) => {
      const t0 = performance.now()
      await o.client.request("POST", `/api/v1/workers/${worker.id}/runs/${runId}/heartbeat`, {
        headers: { authorization: `Bearer ${worker.token}` }
      })
      heartbeats.push(performance.now() - t0)
    })
  }
  // Read a few seconds after the burst of 20,000 heartbeat requests (read at
  // once, without a full GC, RSS moved between +40 and +197 MB from run to run).
  const settle = Math.min(4000, o.heartbeatTimeoutSeconds * 500)
  await sleep(settle)
  const heapSupervisingMb = await o.service.heapMb()
  const rssSupervisingMb = o.service.rssMb()
  // Heartbeats stop: wait for every run to time out, then read the runs back.
  await sleep(o.heartbeatTimeoutSeconds * 1000 + 3000 - settle)
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
    rssIdleMb,
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
