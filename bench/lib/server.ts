import { randomBytes } from "node:crypto"
import { spawn, type ChildProcess } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { childrenOf } from "./cpu.js"
import { sleep } from "./stats.js"

export interface Service {
  readonly url: string
  readonly pid: number
  /** The service's processes: the one started and, with WEB_CONCURRENCY > 1, its service processes. */
  readonly pids: () => Array<number>
  /** Resident memory of all of them together. */
  readonly rssMb: () => number
  /** Heap in use after a full GC, in MB (through bench/lib/heapProbe.ts): the started process's only. */
  readonly heapMb: () => Promise<number>
  readonly stop: () => Promise<void>
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer()
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as net.AddressInfo).port
      server.close(() => resolve(port))
    })
  })

/** Resident memory of a process, from /proc (Linux). */
export const rssMbOf = (pid: number): number => {
  let status = ""
  try {
    status = fs.readFileSync(`/proc/${pid}/status`, "utf8")
  } catch {
    // gone meanwhile (a service process that was replaced)
  }
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0)
  return Math.round((kb / 1024) * 10) / 10
}

/**
 * Starts the service as its own process (`node dist/main.js`, built by
 * `prebench`), exactly as `npm start` does, and waits for /health. tsx is
 * there only to load the heap probe. `WEB_CONCURRENCY` is `npm start`'s
 * default (one process per core on Postgres) unless `env` sets it; the
 * health check answering means one process is up, so with several this also
 * waits until all of them are.
 */
const expectedProcesses = (env: Record<string, string | undefined>) =>
  !env.DATABASE_URL ? 1 : env.WEB_CONCURRENCY ? Number(env.WEB_CONCURRENCY) : os.availableParallelism()

const benchJwtSecret = randomBytes(48).toString("base64")
const benchSecretsKey = randomBytes(32).toString("base64")

export interface StartOptions {
  /**
   * Load the heap probe (through tsx) for `heapMb`; default true. Without it
   * the command is `node dist/main.js`, exactly `npm start`'s, and so are the
   * service processes it forks (they inherit the node options).
   */
  readonly heapProbe?: boolean
}

export const startService = async (env: Record<string, string>, options: StartOptions = {}): Promise<Service> => {
  const port = await freePort()
  const dataDir = env.DATA_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), "pts-bench-"))
  const childEnv: Record<string, string | undefined> = {
    ...process.env,
    PORT: String(port),
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
    // A service on DATABASE_URL requires its keys (they must be shared by every instance).
    JWT_SECRET: benchJwtSecret,
    SECRETS_KEY: benchSecretsKey,
    LOG_LEVEL: "Warning",
    ...env
  }
  for (const [k, v] of Object.entries(childEnv)) if (v === "") delete childEnv[k]
  // BENCH_NODE_OPTIONS, e.g. "--cpu-prof --cpu-prof-dir=bench/results/prof", profiles the service.
  const nodeOptions = (process.env.BENCH_NODE_OPTIONS ?? "").split(" ").filter((s) => s.length > 0)
  const probe = path.join(path.dirname(new URL(import.meta.url).pathname), "heapProbe.ts")
  const withProbe = options.heapProbe ?? true
  const child: ChildProcess = spawn(
    process.execPath,
    [...nodeOptions, ...(withProbe ? ["--expose-gc", "--import", "tsx", "--import", probe] : []), "dist/main.js"],
    { env: childEnv, stdio: ["ignore", "ignore", "inherit", ...(withProbe ? ["ipc" as const] : [])] }
  )
  let stopping = false
  // A service that dies mid-benchmark shows up in the client as ECONNRESET; say how it ended.
  child.once("exit", (code, signal) => {
    if (!stopping) process.stderr.write(`service exited unexpectedly: code ${code}, signal ${signal}\n`)
  })
  const url = `http://127.0.0.1:${port}`
  for (let i = 0; i < 600; i++) {
    try {
      // Bounded: a connection accepted while the service is still starting may never be answered.
      const res = await fetch(`${url}/api/v1/health`, { signal: AbortSignal.timeout(2000) })
      if (res.ok) break
    } catch {
      // not up yet
    }
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}`)
    await sleep(100)
  }
  const processes = expectedProcesses(childEnv)
  for (let i = 0; i < 600 && processes > 1 && childrenOf(child.pid!).length < processes; i++) await sleep(100)
  // A service process listens once its app is served; give the last one a moment past its fork.
  if (processes > 1) await sleep(3000)
  return {
    url,
    pid: child.pid!,
    pids: () => [child.pid!, ...childrenOf(child.pid!)],
    rssMb: () => Math.round([child.pid!, ...childrenOf(child.pid!)].reduce((sum, pid) => sum + rssMbOf(pid), 0) * 10) / 10,
    heapMb: () =>
      !withProbe ? Promise.resolve(NaN) : new Promise<number>((resolve) => {
        child.once("message", (m: any) => resolve(Number(m?.heapUsedMb ?? NaN)))
        child.send("heap")
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        stopping = true
        child.once("exit", () => resolve())
        child.kill("SIGTERM")
        setTimeout(() => child.kill("SIGKILL"), 15_000).unref()
      })
  }
}
