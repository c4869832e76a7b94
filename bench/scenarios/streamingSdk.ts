import { type ChildProcess, spawn } from "node:child_process"
import * as path from "node:path"
import { cpuMeter, type CpuPerRun } from "../lib/cpu.js"
import { createDatabase, query } from "../lib/database.js"
import { makeClient } from "../lib/http.js"
import { startReceiver } from "../lib/receiver.js"
import { startService } from "../lib/server.js"
import { createTrigger, registerWorkers, setupTenant } from "../lib/setup.js"
import { summarize, type Summary } from "../lib/stats.js"

export interface StreamingSdkFigures {
  readonly client: string
  readonly webConcurrency: string
  readonly processes: number
  readonly workerProcesses: number
  readonly workers: number
  readonly slotsPerWorker: number
  readonly runs: number
  readonly seconds: number
  /** Runs from the first request to the last webhook received, per second. */
  readonly runsPerSec: number
  /** Run created → started (claimed and started by the statement that pushed it), from the database's timestamps. */
  readonly dispatch: Summary
  readonly errors: number
  /** CPU ms and write syscalls per run: the service, Postgres, this bench process, the worker hosts (`workers`). */
  readonly cpuMsPerRun: CpuPerRun
}

const hookSecret = "bench-secret-0123456789abcdef"

/** Starts a worker host (bench/workers/sdkWorker.ts) for these workers; resolves once all of them are connected. */
const startHost = (url: string, workers: ReadonlyArray<{ readonly id: string; readonly token: string }>, slots: number) =>
  new Promise<ChildProcess>((resolve, reject) => {
    const script = path.join(path.dirname(new URL(import.meta.url).pathname), "..", "workers", "sdkWorker.ts")
    // BENCH_SDK_NODE_OPTIONS, e.g. "--cpu-prof --cpu-prof-dir=bench/results/prof-sdk", profiles the worker hosts.
    const nodeOptions = (process.env.BENCH_SDK_NODE_OPTIONS ?? "").split(" ").filter((s) => s.length > 0)
    const child = spawn(process.execPath, [...nodeOptions, "--import", "tsx", script], {
      env: { ...process.env, BENCH_SDK_URL: url, BENCH_SDK_WORKERS: JSON.stringify(workers), BENCH_SDK_CONCURRENCY: String(slots) },
      stdio: ["ignore", "pipe", "inherit"]
    })
    const timer = setTimeout(() => reject(new Error("sdk worker host: not ready in 60 s")), 60_000)
    child.stdout!.on("data", (data: Buffer) => {
      if (String(data).includes("ready")) {
        clearTimeout(timer)
        resolve(child)
      }
    })
    child.once("exit", (code) => reject(new Error(`sdk worker host exited with ${code}`)))
  })

/**
 * The full lifecycle with the project's worker SDK as the workers: `runWorker`
 * over the channel, a handler that succeeds at once, in processes of their
 * own (`hosts` of them, the workers split among them), so the SDK's CPU per
 * run is measured apart from the service's. Runs requested over HTTP (16
 * producers as fast as they go), each webhook received by a local receiver.
 */
export const streamingSdk = async (o: {
  readonly baseUrl: string
  readonly webConcurrency: string | undefined
  readonly runs: number
  readonly workers: number
  readonly slots: number
  readonly hosts: number
}): Promise<StreamingSdkFigures> => {
  const databaseUrl = await createDatabase(o.baseUrl, "pts_bench_streaming_sdk")
  const service = await startService(
    { DATABASE_URL: databaseUrl, ...(o.webConcurrency ? { WEB_CONCURRENCY: o.webConcurrency } : {}) },
    { heapProbe: false }
  )
  const client = makeClient(service.url)
  const receiver = await startReceiver()
  const hosts: Array<ChildProcess> = []
  try {
    const processes = Math.max(1, service.pids().length - 1)
    const tenant = await setupTenant(client, service.url)
    const workers = await registerWorkers(client, tenant, o.workers)
    const triggerId = await createTrigger(client, tenant, { webhookUrl: receiver.url, webhookSecret: hookSecret })
    for (let h = 0; h < o.hosts; h++) {
      hosts.push(await startHost(service.url, workers.filter((_, i) => i % o.hosts === h), o.slots))
    }

    const pass = async (runs: number) => {
      const requested: Array<string> = []
      const baseline = receiver.arrivals.size
      let refused = 0
      let next = 0
      const start = Date.now()
      const cpu = cpuMeter(service.pid, hosts.map((host) => host.pid!))
      const produce = async () => {
        while (next < runs) {
          next++
          const res = await client.request("POST", `/api/v1/triggers/${triggerId}/run`, { headers: { authorization: `Bearer ${tenant.apiKey}` } })
          if (res.status === 201) requested.push(res.body.id)
          else refused++
        }
      }
      await Promise.all(Array.from({ length: 16 }, produce))
      await receiver.waitFor(baseline + requested.length, 120_000)
      const cpuMsPerRun = cpu(runs)
      const arrivals = requested.flatMap((id) => receiver.arrivals.has(id) ? [receiver.arrivals.get(id)!] : [])
      const seconds = (Math.max(...arrivals) - start) / 1000
      const rows = await query<{ ms: number; status: string }>(
        databaseUrl,
        `SELECT EXTRACT(EPOCH FROM (started_at - created_at)) * 1000 AS ms, status FROM runs WHERE id = ANY($1::uuid[])`,
        [requested]
      )
      return {
        runs,
        seconds: Math.round(seconds * 100) / 100,
        runsPerSec: Math.round(runs / seconds),
        dispatch: summarize(rows.map((row) => Number(row.ms))),
        errors: refused + rows.filter((row) => row.status !== "succeeded").length,
        cpuMsPerRun
      }
    }
    await pass(Math.min(500, o.runs))
    const figures = await pass(o.runs)
    return {
      client: "worker SDK (runWorker over the channel, its own processes)",
      webConcurrency: o.webConcurrency ?? "default",
      processes,
      workerProcesses: o.hosts,
      workers: o.workers,
      slotsPerWorker: o.slots,
      ...figures
    }
  } finally {
    // SIGTERM lets a profiled host write its profile; SIGKILL after a moment whatever it does.
    for (const host of hosts) host.kill("SIGTERM")
    await new Promise((resolve) => setTimeout(resolve, 1000))
    for (const host of hosts) if (host.exitCode === null) host.kill("SIGKILL")
    client.close()
    await receiver.close()
    await service.stop()
  }
}
