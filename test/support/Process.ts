import * as Reactivity from "@effect/experimental/Reactivity"
import { afterAll } from "@effect/vitest"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { spawn, type ChildProcess } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as http from "node:http"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { seedPgliteDir } from "./TestDatabase.js"

/**
 * Helpers for fault-injection tests that need the service as a real operating
 * system process (`node dist/main.js`, as `npm start` runs it; the tests' global
 * setup builds dist/ from the sources), so
 * that `kill -9`, SIGTERM and two instances on one database are the real thing.
 * Everything is loopback only and plain promises: the tests drive load from
 * many concurrent async loops, which reads more simply without fibers.
 */

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer()
    server.on("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as net.AddressInfo).port
      server.close(() => resolve(port))
    })
  })

export interface Exited {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  /** When the process was seen to exit (Date.now()). */
  readonly at: number
}

export interface ServiceProcess {
  readonly url: string
  readonly port: number
  readonly pid: number
  readonly exited: Promise<Exited>
  readonly isRunning: () => boolean
  /** Sends a signal (SIGKILL for a crash, SIGTERM for a graceful stop). */
  readonly kill: (signal: NodeJS.Signals) => void
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone. */
  readonly stop: (graceMs?: number) => Promise<Exited>
  /** Everything the process wrote to stderr and stdout so far (logs at LOG_LEVEL). */
  readonly output: () => string
}

const children = new Set<ChildProcess>()
// A test that fails half-way must not leave services running on the shared machine.
process.once("exit", () => {
  for (const child of children) child.kill("SIGKILL")
})

// An embedded (PGlite) first start creates and migrates its database: tens of
// seconds on a busy 2-core machine.
const readyTimeoutMs = 120_000

/** Fixed keys for test processes; never used outside tests. */
export const testJwtSecret = "test-jwt-secret-for-test-processes-only-0123456789"
export const testSecretsKey = Buffer.alloc(32, 9).toString("base64")

export interface StartOptions {
  /** Reuse a port (a restart on the same address); a free one otherwise. */
  readonly port?: number
  /** How long to wait for `/api/v1/health` to answer 200. */
  readonly readyTimeoutMs?: number
}

/**
 * Starts one service process and waits until `/api/v1/health` answers 200.
 * `env` adds to (and overrides) the defaults: a temporary `DATA_DIR`,
 * `WEBHOOK_ALLOW_PRIVATE_NETWORKS=true` for a loopback receiver and
 * `LOG_LEVEL=Warn` and `WEB_CONCURRENCY=1`. Pass the same `DATA_DIR` to instances that must share
 * generated secrets (JWT key, webhook secret key).
 */
export const startService = async (env: Record<string, string>, options: StartOptions = {}): Promise<ServiceProcess> => {
  const port = options.port ?? await freePort()
  const dataDir = env.DATA_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), "pts-reliability-"))
  // A data directory made here is for a test that is not about a first start:
  // on the embedded database it is migrated beforehand (no initdb in the process).
  if (env.DATA_DIR === undefined && (env.DATABASE_URL ?? process.env.DATABASE_URL ?? "") === "") {
    await seedPgliteDir(path.join(dataDir, "pg"))
  }
  const childEnv: Record<string, string | undefined> = {
    ...process.env,
    PORT: String(port),
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
    // Instances on one database must share their keys (a shared DATABASE_URL requires them).
    JWT_SECRET: testJwtSecret,
    SECRETS_KEY: testSecretsKey,
    // Effect log level labels: Trace, Debug, Info, Warn, Error, Fatal, None ("Warning" is refused).
    LOG_LEVEL: "Warn",
    // One process per instance, as these tests count instances; test/processes/ runs several.
    WEB_CONCURRENCY: "1",
    ...env
  }
  for (const [k, v] of Object.entries(childEnv)) if (v === "") delete childEnv[k]
  const child = spawn(process.execPath, ["dist/main.js"], {
    env: childEnv,
    cwd: path.resolve(import.meta.dirname, "../.."),
    stdio: ["ignore", "pipe", "pipe"]
  })
  children.add(child)
  let output = ""
  const append = (chunk: Buffer) => {
    // Bounded: a long test must not hold megabytes of logs.
    output = (output + chunk.toString("utf8")).slice(-200_000)
  }
  child.stdout!.on("data", append)
  child.stderr!.on("data", append)
  const exited = new Promise<Exited>((resolve) => {
    child.once("exit", (code, signal) => {
      children.delete(child)
      resolve({ code, signal, at: Date.now() })
    })
  })
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + (options.readyTimeoutMs ?? readyTimeoutMs)
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`service exited before it was ready (${child.exitCode ?? child.signalCode}):\n${output}`)
    }
    const res = await request(url, "GET", "/api/v1/health", { timeoutMs: 2000 })
    if (res.status === 200) break
    if (Date.now() > deadline) {
      child.kill("SIGKILL")
      throw new Error(`service not ready after ${options.readyTimeoutMs ?? readyTimeoutMs} ms:\n${output}`)
    }
    await sleep(100)
  }
  const isRunning = () => child.exitCode === null && child.signalCode === null
  return {
    url,
    port,
    pid: child.pid!,
    exited,
    isRunning,
    kill: (signal) => {
      if (isRunning()) child.kill(signal)
    },
    stop: (graceMs = 15_000) => {
      if (isRunning()) {
        child.kill("SIGTERM")
        const timer = setTimeout(() => child.kill("SIGKILL"), graceMs)
        void exited.then(() => clearTimeout(timer))
      }
      return exited
    },
    output: () => output
  }
}

export interface Reply {
  /** HTTP status, or 0 when the request never got an answer (refused, reset, timed out). */
  readonly status: number
  readonly body: any
  readonly error?: string
  readonly ms: number
}

export interface RequestOptions {
  readonly body?: unknown
  readonly headers?: Record<string, string>
  readonly bearer?: string
  /** The whole request is abandoned (status 0) after this long. */
  readonly timeoutMs?: number
}

// Keep-alive sockets like a real client; a dead server shows up as a reset or refusal.
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 })

/** One HTTP call that never throws: network failures answer status 0 with the error. */
export const request = (
  baseUrl: string,
  method: string,
  urlPath: string,
  options: RequestOptions = {}
): Promise<Reply> =>
  new Promise<Reply>((resolve) => {
    const started = performance.now()
    const url = new URL(baseUrl)
    const payload = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body))
    let settled = false
    const done = (reply: Omit<Reply, "ms">) => {
      if (settled) return
      settled = true
      resolve({ ...reply, ms: performance.now() - started })
    }
    const req = http.request({
      host: url.hostname,
      port: url.port,
      method,
      path: urlPath,
      agent,
      headers: {
        ...(payload ? { "content-type": "application/json", "content-length": String(payload.length) } : {}),
        ...(options.bearer ? { authorization: `Bearer ${options.bearer}` } : {}),
        ...options.headers
      }
    }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8")
        let body: any = text
        try {
          body = text ? JSON.parse(text) : undefined
        } catch {
          // not JSON: keep the text so the assertion shows it
        }
        done({ status: res.statusCode ?? 0, body })
      })
      res.on("error", (e) => done({ status: 0, body: undefined, error: e.message }))
    })
    req.setTimeout(options.timeoutMs ?? 30_000, () => {
      req.destroy(new Error("client timeout"))
    })
    req.on("error", (e: NodeJS.ErrnoException) => done({ status: 0, body: undefined, error: e.code ?? e.message }))
    if (payload) req.write(payload)
    req.end()
  })

/** Drops idle keep-alive sockets (after a test, so the runner can exit). */
export const closeClient = () => agent.destroy()

export interface Receiver {
  readonly url: string
  /** POSTs received per runId, with the status each carried. */
  readonly received: Map<string, Array<string>>
  readonly posts: () => number
  /** While set, every request waits this long before it is answered. */
  delayMs: number
  readonly close: () => Promise<void>
}

/** A local webhook receiver answering 200 and recording every POST by runId. */
export const startReceiver = async (): Promise<Receiver> => {
  let posts = 0
  const received = new Map<string, Array<string>>()
  const sockets = new Set<net.Socket>()
  const receiver: Receiver = {
    url: "",
    received,
    posts: () => posts,
    delayMs: 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      })
  }
  const server = http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      posts++
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
        const list = received.get(body.runId) ?? []
        list.push(body.status)
        received.set(body.runId, list)
      } catch {
        // not a webhook payload: counted in posts only
      }
      setTimeout(() => res.writeHead(200).end("ok"), receiver.delayMs)
    })
  })
  server.on("connection", (s) => {
    sockets.add(s)
    s.on("close", () => sockets.delete(s))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as net.AddressInfo).port
  ;(receiver as { url: string }).url = `http://127.0.0.1:${port}/hook`
  return receiver
}

export interface TestDatabase {
  readonly url: string
  /** Runs SQL on the database (a fresh connection each time, so it survives a server restart). */
  readonly query: <A = any>(sql: string) => Promise<ReadonlyArray<A>>
  readonly drop: () => Promise<void>
}

const withPg = <A>(url: string, f: (pg: PgClient.PgClient) => Effect.Effect<A, unknown>) =>
  Effect.gen(function*() {
    const pg = yield* PgClient.make({ url: Redacted.make(url), maxConnections: 1 })
    return yield* f(pg)
  }).pipe(Effect.scoped, Effect.provide(Reactivity.layer), Effect.runPromise)

/** A fresh, empty database on the `DATABASE_URL` server; the service migrates it at start. */
export const createDatabase = async (): Promise<TestDatabase> => {
  const base = process.env.DATABASE_URL
  if (!base) throw new Error("DATABASE_URL must name a Postgres server")
  const name = `pts_rel_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`
  await withPg(base, (pg) => pg.unsafe(`CREATE DATABASE ${name}`))
  const url = new URL(base)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    // The service keeps its tables in its own schema (DATABASE_SCHEMA, default pipeline_triggers).
    query: (sql) =>
      withPg(url.toString(), (pg) => Effect.zipRight(pg.unsafe("SET search_path TO pipeline_triggers, public"), pg.unsafe(sql))) as Promise<
        ReadonlyArray<any>
      >,
    drop: () => withPg(base, (pg) => pg.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined)
  }
}

/**
 * What service processes of a test run against: a fresh database and a webhook
 * receiver (each cleaned up with `cleanup`), and the settings that point a
 * service at them, `settings` on top. One DATA_DIR: every instance started
 * with these settings shares the generated JWT and webhook-secret keys.
 */
export const databaseAndReceiver = async (
  cleanup: (f: () => Promise<unknown>) => void,
  dataDirPrefix: string,
  settings: Record<string, string>
): Promise<{ readonly db: TestDatabase; readonly receiver: Receiver; readonly env: Record<string, string> }> => {
  const db = await createDatabase()
  cleanup(db.drop)
  const receiver = await startReceiver()
  cleanup(receiver.close)
  const env = { DATABASE_URL: db.url, DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), dataDirPrefix)), ...settings }
  return { db, receiver, env }
}

/** Waits until `check` answers true, polling every `everyMs`; answers whether it did before `timeoutMs`. */
export const waitUntil = async (check: () => Promise<boolean> | boolean, timeoutMs: number, everyMs = 250) => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (await check()) return true
    if (Date.now() > deadline) return false
    await sleep(everyMs)
  }
}

const lockPath = path.join(os.tmpdir(), "pts-fault-tests.lock")

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/**
 * A machine-wide lock, so fault-injection scenarios (which kill processes,
 * restart the shared Postgres and count every 5xx) never overlap each other
 * when vitest runs their files in parallel. A lock left by a dead process is
 * taken over.
 */
export const acquireFaultLock = async (timeoutMs = 600_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      fs.writeFileSync(lockPath, String(process.pid), { flag: "wx" })
      return
    } catch {
      const holder = Number(fs.readFileSync(lockPath, { encoding: "utf8", flag: "a+" }) || 0)
      if (holder > 0 && !alive(holder)) fs.rmSync(lockPath, { force: true })
      else if (Date.now() > deadline) throw new Error(`fault-test lock held by ${holder} for ${timeoutMs} ms`)
      else await sleep(250)
    }
  }
}

export const releaseFaultLock = () => {
  if (fs.existsSync(lockPath) && fs.readFileSync(lockPath, "utf8") === String(process.pid)) fs.rmSync(lockPath, { force: true })
}

/** One fault scenario at a time on this machine (see `acquireFaultLock`), held for the test's scope. */
export const faultLock = Effect.acquireRelease(Effect.promise(() => acquireFaultLock()), () => Effect.sync(releaseFaultLock))

/**
 * A fault-test file's cleanups: each resource registers its own as it comes
 * up; after the file's tests they run newest first (services stop before their
 * database is dropped), then the shared HTTP client closes.
 */
export const cleanupsAfterAll = (): ((cleanup: () => Promise<unknown>) => void) => {
  const cleanups: Array<() => Promise<unknown>> = []
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined)
    closeClient()
  })
  return (cleanup) => {
    cleanups.push(cleanup)
  }
}
