import { type ChildProcess, spawn } from "node:child_process"
import * as path from "node:path"
import { cpuMeter } from "../lib/cpu.js"
import { query } from "../lib/database.js"
import { startLifecycle } from "../lib/lifecycleSetup.js"
import { requestRuns } from "../lib/setup.js"
import { summarize } from "../lib/stats.js"
import type { StreamingFigures } from "./streaming.js"

/**
 * As `streaming`'s figures, with the worker processes counted; dispatch is
 * run created → started (claimed and started by the statement that pushed
 * it), from the database's timestamps; errors include runs not `succeeded`;
 * `cpuMsPerRun.workers` is the worker hosts'.
 */
export interface StreamingSdkFigures extends Omit<StreamingFigures, "lost"> {
  readonly workerProcesses: number
}

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
  const { databaseUrl, service, client, receiver, tenant, workers, triggerId, processes, close } = await startLifecycle({
    baseUrl: o.baseUrl,
    database: "pts_bench_streaming_sdk",
    webConcurrency: o.webConcurrency,
    workers: o.workers
  })
  const hosts: Array<ChildProcess> = []
  try {
    for (let h = 0; h < o.hosts; h++) {
      hosts.push(await startHost(service.url, workers.filter((_, i) => i % o.hosts === h), o.slots))
    }

    const pass = async (runs: number) => {
      const baseline = receiver.arrivals.size
      const start = Date.now()
      const cpu = cpuMeter(service.pid, hosts.map((host) => host.pid!))
      const made = await requestRuns(client, tenant, triggerId, runs)
      const requested = [...made.requestedAt.keys()]
      const refused = made.refused
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
    await close()
  }
}
