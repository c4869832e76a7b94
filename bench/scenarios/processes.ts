import { makeClient, type Client } from "../lib/http.js"
import { startReceiver } from "../lib/receiver.js"
import { startService } from "../lib/server.js"
import { createTrigger, registerWorkers, setupTenant } from "../lib/setup.js"
import { lifecycle, type LifecycleFigures } from "./lifecycle.js"

export interface ProcessesFigures {
  /** WEB_CONCURRENCY of the pass; "default" is `npm start`'s (one process per core on Postgres). */
  readonly webConcurrency: string
  readonly processes: number
  readonly runsPerSec: number
  /** Service CPU ms per run and per HTTP request, summed over its processes. */
  readonly serviceCpuMsPerRun: number
  readonly serviceCpuMsPerRequest: number
  readonly requestsPerRun: number
  readonly lifecycle: LifecycleFigures
}

/** Every HTTP request the service counted, all processes together (its /metrics gathers them). */
const requestsServed = async (client: Client): Promise<number> => {
  const res = await client.request("GET", "/metrics")
  let total = 0
  for (const line of String(res.body).split("\n")) {
    if (line.startsWith("pts_http_requests_total{")) total += Number(line.slice(line.lastIndexOf(" ") + 1))
  }
  return total
}

/**
 * The REST lifecycle, one call per step, on one start of the service with
 * the given WEB_CONCURRENCY (unset = `npm start`'s default), on a database of
 * its own: throughput and where the service's CPU went.
 */
export const processesPass = async (o: {
  readonly databaseUrl: string
  readonly webConcurrency: string | undefined
  readonly runs: number
  readonly workers: number
}): Promise<ProcessesFigures> => {
  const service = await startService(
    { DATABASE_URL: o.databaseUrl, ...(o.webConcurrency ? { WEB_CONCURRENCY: o.webConcurrency } : {}) },
    { heapProbe: false }
  )
  const client = makeClient(service.url)
  const receiver = await startReceiver()
  try {
    const processes = Math.max(1, service.pids().length - 1)
    const tenant = await setupTenant(client, service.url)
    const workers = await registerWorkers(client, tenant, o.workers)
    const triggerId = await createTrigger(client, tenant, { webhookUrl: receiver.url, webhookSecret: "bench-secret-0123456789abcdef" })
    const common = { client, tenant, receiver, producers: 16, servicePid: service.pid, workers, triggerId, batch: 0, rate: 0 }
    await lifecycle({ ...common, runs: Math.min(500, o.runs) })
    const before = await requestsServed(client)
    const figures = await lifecycle({ ...common, runs: o.runs })
    // Less the scrape that reads it.
    const requests = (await requestsServed(client)) - before - 1
    const cpuMs = figures.cpuMsPerRun.service * o.runs
    return {
      webConcurrency: o.webConcurrency ?? "default",
      processes,
      runsPerSec: figures.runsPerSec,
      serviceCpuMsPerRun: figures.cpuMsPerRun.service,
      serviceCpuMsPerRequest: Math.round((cpuMs / requests) * 1000) / 1000,
      requestsPerRun: Math.round((requests / o.runs) * 100) / 100,
      lifecycle: figures
    }
  } finally {
    client.close()
    await receiver.close()
    await service.stop()
  }
}
