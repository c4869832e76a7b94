import { openChannelWorker, type ChannelWorker } from "../lib/channelClient.js"
import { cpuMeter, type CpuPerRun } from "../lib/cpu.js"
import { createDatabase, query } from "../lib/database.js"
import { insertWorkers } from "../lib/fleet.js"
import { expectStatus, makeClient } from "../lib/http.js"
import { rssMbOf, startService } from "../lib/server.js"
import { startLifecycle } from "../lib/lifecycleSetup.js"
import { createTrigger, requestRuns, setupTenant } from "../lib/setup.js"
import { sleep, summarize, type Summary } from "../lib/stats.js"

/** Which client the workers are: see `bench/lib/channelClient.ts`. */
const clientName = "lean rpc client (ws, the SDK's messages)"

export interface StreamingFigures {
  readonly client: string
  readonly webConcurrency: string
  readonly processes: number
  readonly workers: number
  readonly slotsPerWorker: number
  readonly runs: number
  readonly seconds: number
  /** Runs from the first request to the last webhook received, per second. */
  readonly runsPerSec: number
  /** Request answered → run pushed to a worker. */
  readonly dispatch: Summary
  readonly errors: number
  /** Runs requested that no worker was pushed (should be 0). */
  readonly lost: number
  /** CPU ms per run: the service (all its processes), Postgres, this bench process (client, producers, receiver). */
  readonly cpuMsPerRun: CpuPerRun
}

/**
 * The full lifecycle with channel workers: runs requested over HTTP (16
 * producers as fast as they go), pushed to the workers over the channel
 * (claimed and started), completed over it at once, and each webhook
 * received by a local receiver. The service runs as `npm start` runs it (its
 * default WEB_CONCURRENCY unless given), on a database of its own.
 */
export const streaming = async (o: {
  readonly baseUrl: string
  readonly webConcurrency: string | undefined
  readonly runs: number
  readonly workers: number
  readonly slots: number
}): Promise<StreamingFigures> => {
  const { service, client, receiver, tenant, workers, triggerId, processes, close } = await startLifecycle({
    baseUrl: o.baseUrl,
    database: "pts_bench_streaming",
    webConcurrency: o.webConcurrency,
    workers: o.workers
  })
  const channels: Array<ChannelWorker> = []
  try {
    const pushedAt = new Map<string, number>()
    for (const worker of workers) {
      const channel = openChannelWorker({ baseUrl: service.url, token: worker.token, slots: o.slots, onRun: (run) => pushedAt.set(run.id, Date.now()) })
      channels.push(channel)
      await channel.opened
    }
    const errors = () => channels.reduce((sum, c) => sum + c.errors(), 0)

    const pass = async (runs: number) => {
      const baseline = receiver.arrivals.size
      const errorsBefore = errors()
      const start = Date.now()
      const cpu = cpuMeter(service.pid)
      const { requestedAt, refused } = await requestRuns(client, tenant, triggerId, runs)
      await receiver.waitFor(baseline + requestedAt.size, 120_000)
      const cpuMsPerRun = cpu(runs)
      const arrivals = [...requestedAt.keys()].flatMap((id) => receiver.arrivals.has(id) ? [receiver.arrivals.get(id)!] : [])
      const seconds = (Math.max(...arrivals) - start) / 1000
      return {
        runs,
        seconds: Math.round(seconds * 100) / 100,
        runsPerSec: Math.round(runs / seconds),
        dispatch: summarize([...requestedAt].flatMap(([id, at]) => pushedAt.has(id) ? [Math.max(0, pushedAt.get(id)! - at)] : [])),
        errors: refused + errors() - errorsBefore,
        lost: [...requestedAt.keys()].filter((id) => !pushedAt.has(id)).length,
        cpuMsPerRun
      }
    }
    await pass(Math.min(500, o.runs))
    const figures = await pass(o.runs)
    return {
      client: clientName,
      webConcurrency: o.webConcurrency ?? "default",
      processes,
      workers: o.workers,
      slotsPerWorker: o.slots,
      ...figures
    }
  } finally {
    for (const channel of channels) channel.close()
    await close()
  }
}

export interface StreamingIdleFigures {
  readonly client: string
  readonly workers: number
  readonly webConcurrency: string
  /** Channels open and subscribed; those refused or dropped (should be 0). */
  readonly connected: number
  readonly errors: number
  readonly connectSeconds: number
  /** RSS of the service (all processes) before the connections and while they idle; per process while they idle. */
  readonly rssIdleMb: number
  readonly rssHoldingMb: number
  readonly rssHoldingPerProcessMb: ReadonlyArray<number>
  /** While they idle, over `seconds`: CPU ms per second of the service (all processes) and Postgres, and the database's transactions per second. */
  readonly idleServiceCpuMsPerSec: number
  readonly idlePostgresCpuMsPerSec: number
  readonly idleTransactionsPerSec: number
  readonly seconds: number
  /** A run for one of the idle workers (a trigger pinned to it), from the request until the worker holds it. */
  readonly dispatchMs: Summary
  readonly healthMs: Summary
}

/**
 * 10,000 registered workers (inserted in bulk) each holding an open channel
 * (subscribed with one slot, pinging every 10 s), all from this one process:
 * the service's memory with that many connections, what it spends while
 * they idle, and whether a run for one of them is still pushed at once.
 */
export const streamingIdle = async (o: {
  readonly baseUrl: string
  readonly workers: number
  readonly webConcurrency: string | undefined
  readonly seconds: number
}): Promise<StreamingIdleFigures> => {
  const databaseUrl = await createDatabase(o.baseUrl, "pts_bench_streaming_idle")
  const service = await startService(
    { DATABASE_URL: databaseUrl, ...(o.webConcurrency ? { WEB_CONCURRENCY: o.webConcurrency } : {}) },
    { heapProbe: false }
  )
  const client = makeClient(service.url)
  const channels: Array<ChannelWorker> = []
  try {
    const tenant = await setupTenant(client, service.url)
    const workers = await insertWorkers(databaseUrl, tenant.environmentId, o.workers, "channel")
    const pinnedIndexes = [0, 1, 2, 3, 4].map((i) => (i * 997) % o.workers)
    const pinned = await Promise.all(pinnedIndexes.map((i) => createTrigger(client, tenant, { workerId: workers[i]!.id })))
    const rssIdleMb = service.rssMb()

    const pushed = new Map<number, number>()
    const connectStarted = performance.now()
    let refused = 0
    // 200 upgrades at a time: a fleet connects over a while, not in one instant.
    for (let from = 0; from < workers.length; from += 200) {
      const batch = workers.slice(from, from + 200).map((worker, k) => {
        const index = from + k
        const channel = openChannelWorker({
          baseUrl: service.url,
          token: worker.token,
          slots: 1,
          complete: false,
          onRun: () => pushed.set(index, performance.now())
        })
        channels.push(channel)
        return channel.opened.catch(() => {
          refused++
        })
      })
      await Promise.all(batch)
    }
    const connectSeconds = Math.round((performance.now() - connectStarted) / 10) / 100
    // Let the subscriptions settle (each first looks for runs, then waits).
    await sleep(5000)

    const dbName = new URL(databaseUrl).pathname.slice(1)
    const transactions = async () =>
      Number((await query<{ n: string }>(o.baseUrl, `SELECT (xact_commit + xact_rollback)::text AS n FROM pg_stat_database WHERE datname = $1`, [dbName]))[0]!.n)
    const tx0 = await transactions()
    const meter = cpuMeter(service.pid)
    const t0 = performance.now()
    await sleep(o.seconds * 1000)
    const elapsed = (performance.now() - t0) / 1000
    // Per second of the window, not per run.
    const perSecond = meter(elapsed)
    // Less the statement that reads the counter.
    const idleTransactionsPerSec = Math.round(((await transactions()) - tx0 - 1) / elapsed * 10) / 10
    const rssHoldingPerProcessMb = service.pids().map(rssMbOf)
    const rssHoldingMb = service.rssMb()

    const health: Array<number> = []
    for (let i = 0; i < 20; i++) {
      const t = performance.now()
      expectStatus(await client.request("GET", "/api/v1/health"), 200, "health")
      health.push(performance.now() - t)
      await sleep(100)
    }
    const dispatch: Array<number> = []
    for (const [n, triggerId] of pinned.entries()) {
      const index = pinnedIndexes[n]!
      const t = performance.now()
      expectStatus(await client.request("POST", `/api/v1/triggers/${triggerId}/run`, { headers: { authorization: `Bearer ${tenant.apiKey}` } }), 201, "run")
      for (let i = 0; i < 3000 && !((pushed.get(index) ?? 0) >= t); i++) await sleep(2)
      dispatch.push((pushed.get(index) ?? Infinity) - t)
    }
    return {
      client: clientName,
      workers: o.workers,
      webConcurrency: o.webConcurrency ?? "default",
      connected: o.workers - refused,
      errors: refused + channels.reduce((sum, c) => sum + c.errors(), 0),
      connectSeconds,
      rssIdleMb,
      rssHoldingMb,
      rssHoldingPerProcessMb,
      idleServiceCpuMsPerSec: perSecond.service,
      idlePostgresCpuMsPerSec: perSecond.postgres,
      idleTransactionsPerSec,
      seconds: o.seconds,
      dispatchMs: summarize(dispatch),
      healthMs: summarize(health)
    }
  } finally {
    for (const channel of channels) channel.close()
    client.close()
    await service.stop()
  }
}
