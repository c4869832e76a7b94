import { spawn } from "node:child_process"
import * as net from "node:net"
import * as path from "node:path"
import { cpuMeter } from "../lib/cpu.js"
import { type Client, makeClient } from "../lib/http.js"
import type { Tenant, Worker } from "../lib/setup.js"

/**
 * What an ordinary request costs the service, in CPU milliseconds of its
 * process per request, beside a bare HttpApi endpoint (bench/reference/
 * bareHttpApi.ts, its own process) measured the same way: 32 keep-alive
 * connections, `requests` calls each route. `/api/v1/health/live` goes
 * through the whole middleware stack without touching the database; the
 * other routes add their statements (health's `SELECT 1` is shared by the
 * checks in flight together, see Health/SharedCheck).
 */
export interface RequestFigures {
  readonly route: string
  readonly perSec: number
  readonly cpuMsPerRequest: number
}

const hammer = async (client: Client, pid: number, route: string, requests: number, headers: Record<string, string>) => {
  const cpu = cpuMeter(pid)
  const started = performance.now()
  let next = 0
  await Promise.all(Array.from({ length: 32 }, async () => {
    while (next < requests) {
      next++
      const reply = await client.request("GET", route, { headers })
      if (reply.status !== 200) throw new Error(`${route}: HTTP ${reply.status}`)
    }
  }))
  const seconds = (performance.now() - started) / 1000
  return { route, perSec: Math.round(requests / seconds), cpuMsPerRequest: cpu(requests).service }
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const port = (server.address() as net.AddressInfo).port
      server.close(() => resolve(port))
    })
  })

export const requests = async (o: {
  readonly client: Client
  readonly servicePid: number
  readonly tenant: Tenant
  readonly worker: Worker
  readonly requests: number
}): Promise<ReadonlyArray<RequestFigures>> => {
  const port = await freePort()
  const bare = spawn(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "../reference/bareHttpApi.ts"), String(port)], {
    stdio: "ignore"
  })
  try {
    const bareClient = makeClient(`http://127.0.0.1:${port}`)
    let up = false
    for (let i = 0; i < 600 && !up; i++) {
      up = await bareClient.request("GET", "/health").then((r) => r.status === 200, () => false)
      if (!up) await new Promise((resolve) => setTimeout(resolve, 100))
    }
    if (!up) throw new Error("the bare HttpApi reference did not start")
    const figures: Array<RequestFigures> = []
    // Warm each route first: the first calls compile code paths.
    const measure = async (client: Client, pid: number, label: string, route: string, headers: Record<string, string> = {}) => {
      await hammer(client, pid, route, Math.min(1000, o.requests), headers)
      figures.push({ ...(await hammer(client, pid, route, o.requests, headers)), route: label })
    }
    await measure(bareClient, bare.pid!, "bare HttpApi GET (reference)", "/health")
    // The whole middleware stack (request id, log line, metrics, JSON guard, CORS, error model) and no database:
    // what the service adds to a request before any handler work.
    await measure(o.client, o.servicePid, "GET /api/v1/health/live (no database)", "/api/v1/health/live")
    await measure(o.client, o.servicePid, "GET /api/v1/health", "/api/v1/health")
    await measure(o.client, o.servicePid, "GET /api/v1/workers/me", "/api/v1/workers/me", { authorization: `Bearer ${o.worker.token}` })
    await measure(o.client, o.servicePid, "GET /environments/{id}/triggers?limit=5", `/api/v1/environments/${o.tenant.environmentId}/triggers?limit=5`, {
      authorization: `Bearer ${o.tenant.apiKey}`
    })
    bareClient.close()
    return figures
  } finally {
    bare.kill("SIGKILL")
  }
}
