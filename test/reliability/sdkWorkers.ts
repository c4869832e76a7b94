import { spawn } from "node:child_process"
import * as path from "node:path"
import type { Exited } from "../support/Process.js"

/**
 * SDK worker processes beside the load's own HTTP workers in the fault tests:
 * `runWorker` from the package's build, over the worker channel or REST,
 * each a real process whose exit the test can see (`sdk-worker.mjs`).
 */

export interface SdkWorker {
  readonly transport: "channel" | "rest"
  readonly workerId: string
  /** Each run handed to the worker's handler, with when (epoch ms). */
  readonly handled: Array<{ readonly runId: string; readonly at: number }>
  readonly exited: Promise<Exited>
  readonly isRunning: () => boolean
  readonly output: () => string
  readonly stop: () => Promise<Exited>
}

const script = path.resolve(import.meta.dirname, "sdk-worker.mjs")

export const startSdkWorker = (
  baseUrl: string,
  worker: { readonly id: string; readonly token: string },
  transport: "channel" | "rest"
): SdkWorker => {
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, PTS_URL: baseUrl, PTS_WORKER_ID: worker.id, PTS_WORKER_TOKEN: worker.token, PTS_TRANSPORT: transport },
    cwd: path.resolve(import.meta.dirname, "../.."),
    stdio: ["ignore", "pipe", "pipe"]
  })
  const handled: Array<{ runId: string; at: number }> = []
  let output = ""
  let partial = ""
  child.stdout!.on("data", (chunk: Buffer) => {
    const lines = (partial + chunk.toString("utf8")).split("\n")
    partial = lines.pop()!
    for (const line of lines) {
      const match = /^run (\S+) (\d+)$/.exec(line)
      if (match) handled.push({ runId: match[1]!, at: Number(match[2]) })
      else output = (output + line + "\n").slice(-100_000)
    }
  })
  child.stderr!.on("data", (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-100_000)
  })
  const exited = new Promise<Exited>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal, at: Date.now() })))
  const isRunning = () => child.exitCode === null && child.signalCode === null
  // A failed test must not leave workers running on the shared machine.
  process.once("exit", () => child.kill("SIGKILL"))
  return {
    transport,
    workerId: worker.id,
    handled,
    exited,
    isRunning,
    output: () => output,
    stop: () => {
      if (isRunning()) {
        child.kill("SIGTERM")
        const timer = setTimeout(() => child.kill("SIGKILL"), 5000)
        void exited.then(() => clearTimeout(timer))
      }
      return exited
    }
  }
}

/** Two channel and two REST workers for the tenant's `workers` (four of them). */
export const startSdkWorkers = (baseUrl: string, workers: ReadonlyArray<{ readonly id: string; readonly token: string }>) =>
  workers.map((worker, i) => startSdkWorker(baseUrl, worker, i % 2 === 0 ? "channel" : "rest"))

/**
 * The figures the fault tests assert on the SDK workers: how many exited, how
 * many runs each transport took, runs handed out twice, and how long after
 * `backAt` (the fault over) the slowest worker took a run again (-1: one never did).
 */
/**
 * How soon after the service is back every SDK worker must take a run again. Its reconnect attempts are at
 * most 5 s apart; connecting and being handed a run come on top, which took 7-8 s at a load of 6 on 2 cores.
 * A worker that gave up, or backed off for minutes, fails it; how fast a worker resumes is the bench's to measure.
 */
export const resumeBoundMs = 20_000

export const sdkFigures = (workers: ReadonlyArray<SdkWorker>, backAt: number) => {
  const seen = new Map<string, number>()
  for (const worker of workers) for (const { runId } of worker.handled) seen.set(runId, (seen.get(runId) ?? 0) + 1)
  const resumeMs = workers.map((worker) => {
    const next = worker.handled.find((h) => h.at >= backAt)
    return next === undefined ? -1 : next.at - backAt
  })
  return {
    sdkWorkerExits: workers.filter((worker) => !worker.isRunning()).length,
    sdkRunsChannel: workers.filter((w) => w.transport === "channel").reduce((n, w) => n + w.handled.length, 0),
    sdkRunsRest: workers.filter((w) => w.transport === "rest").reduce((n, w) => n + w.handled.length, 0),
    sdkHandedTwice: [...seen.values()].filter((n) => n > 1).length,
    sdkResumeMs: resumeMs,
    sdkSlowestResumeMs: resumeMs.includes(-1) ? -1 : Math.max(...resumeMs)
  }
}
