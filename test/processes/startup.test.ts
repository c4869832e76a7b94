import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Logging from "../../src/Config/Logging.js"
import * as StartupFailure from "../../src/Config/StartupFailure.js"
import * as Preflight from "../../src/Processes/Preflight.js"
import { setupTenant } from "../reliability/load.js"
import { freePort, request, sleep, startService } from "../support/Process.js"

/**
 * Start-up and shutdown of the real process (`node dist/main.js`, as
 * `npm start` runs it): a bad setting ends the start within seconds with
 * exit code 1, and stderr names the variable, its value (never a secret's)
 * and what is allowed; a signal during start-up is answered; a stop is
 * announced at once and is quick when nothing is in flight.
 */

const root = path.resolve(import.meta.dirname, "../..")

interface Ended {
  readonly code: number | null
  readonly ms: number
  readonly stderr: string
  readonly output: string
}

/** The settings every start here begins from, `env` over them. */
const testDefaults = (env: Record<string, string>): Record<string, string> => ({
  DATABASE_URL: "",
  // Any valid port (nothing listens here); the processes below take a free one.
  PORT: "3000",
  DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "pts-startup-")),
  LOG_LEVEL: "Info",
  WEB_CONCURRENCY: "1",
  ...env
})

/** Runs the service with `env` over the test defaults until it exits (killed after `limitMs`). */
const runUntilExit = (env: Record<string, string>, limitMs = 20_000) =>
  new Promise<Ended>((resolve) => {
    const started = Date.now()
    const child = spawn(process.execPath, ["dist/main.js"], {
      cwd: root,
      env: { ...process.env, ...testDefaults(env) },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stderr = ""
    let output = ""
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8")
      output += chunk.toString("utf8")
    })
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8")
    })
    const timer = setTimeout(() => child.kill("SIGKILL"), limitMs)
    child.once("exit", (code) => {
      clearTimeout(timer)
      resolve({ code, ms: Date.now() - started, stderr, output })
    })
  })

// A port that is free, so no case fails on the port by accident.
const valid = async () => ({ PORT: String(await freePort()) })

/** The bad settings, each with what the report must say about it. */
const cases: ReadonlyArray<readonly [Record<string, string>, ReadonlyArray<string>]> = (() => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "pts-startup-file-")), "a-file")
  fs.writeFileSync(file, "not a directory")
  return [
    [{ LOG_LEVEL: "verbose" }, ["LOG_LEVEL", `"verbose"`, "Trace, Debug, Info, Warn"]],
    [{ LOG_FORMAT: "xml" }, ["LOG_FORMAT", `"xml"`, "logfmt, json, pretty, structured"]],
    [{ SHUTDOWN_TIMEOUT_SECONDS: "-5" }, ["SHUTDOWN_TIMEOUT_SECONDS", `"-5"`, "a whole number ≥ 0"]],
    [{ DATA_DIR: file }, ["DATA_DIR", JSON.stringify(file), "a directory this process can create and write", "not a directory"]],
    [{ DATA_DIR: "/proc/nope" }, ["DATA_DIR", `"/proc/nope"`, "a directory this process can create and write", "ENOENT"]],
    [{ PORT: "abc" }, ["PORT", `"abc"`, "from 1 to 65535"]],
    [{ WEB_CONCURRENCY: "0" }, ["WEB_CONCURRENCY", `"0"`, "a whole number ≥ 1"]],
    [{ COOKIE_SECURE: "perhaps" }, ["COOKIE_SECURE", `"perhaps"`, "true or false"]],
    [{ PUBLIC_URL: "localhost:3000" }, ["PUBLIC_URL", `"localhost:3000"`, "an http:// or https:// URL"]],
    [{ DATABASE_SCHEMA: "Bad-Name" }, ["DATABASE_SCHEMA", `"Bad-Name"`, "lower-case Postgres identifier"]],
    [{ RUN_RETENTION_DAYS: "0" }, ["RUN_RETENTION_DAYS", `"0"`, "a whole number ≥ 1 (days)"]],
    [{ CLAIM_TIMEOUT_SECONDS: "soon" }, ["CLAIM_TIMEOUT_SECONDS", `"soon"`, "a whole number ≥ 1 (seconds)"]],
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }, ["OTEL_EXPORTER_OTLP_PROTOCOL", `"grpc"`, "http/protobuf, http/json"]],
    [{ WORKER_CHANNEL_ENABLED: "maybe" }, ["WORKER_CHANNEL_ENABLED", `"maybe"`, "boolean"]],
    [{ ALLOWED_ORIGINS: "https://ok.example.com,foo" }, ["ALLOWED_ORIGINS", `"https://ok.example.com,foo"`, "http:// or https:// origins"]],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" }, ["OTEL_EXPORTER_OTLP_ENDPOINT", `"collector:4318"`, "an http:// or https:// URL"]],
    [{ SECRETS_KEY: "tooshortkey" }, ["SECRETS_KEY", "32 bytes, base64-encoded"]],
    [{ DATABASE_URL: "mysql://app:hunter2@db/app" }, ["DATABASE_URL", `"mysql:"`, "postgres://"]]
  ]
})()

const label = (env: Record<string, string>) => Object.entries(env).map(([k, v]) => `${k}=${v}`).join(" ")

/**
 * What `npm start` checks before anything slow and writes to stderr when it
 * refuses, in this process: `Launch.main` reads the logging settings
 * (`Logging.fromEnv`), then every other one (`Preflight.check`), and prints
 * `StartupFailure.report` of the failure. Over the same environment as
 * `runUntilExit` gives a process (a valid PORT), through a provider that reads it as the
 * process's own (`ConfigProvider.fromEnv` splits names at `_` too).
 */
const refusal = (env: Record<string, string>) =>
  Effect.gen(function*() {
    const exit = yield* Effect.exit(Effect.zipRight(Logging.fromEnv, Preflight.check))
    if (Exit.isSuccess(exit)) return yield* Effect.dieMessage(`${label(env)} was accepted`)
    return StartupFailure.report(exit.cause) ?? ""
  }).pipe(
    Effect.withConfigProvider(ConfigProvider.fromMap(
      new Map(Object.entries(testDefaults(env))),
      { pathDelim: "_", seqDelim: "," }
    ))
  )

// Each setting's report, in-process: starting a process per setting cost
// 1-2 s of CPU each (3-6 s at load 16) for what these check; the process
// itself, its exit code and how soon it ends, is checked on the three below.
describe("a bad setting is refused before anything slow, naming the variable, its value and what is allowed (the report, in-process)", () => {
  for (const [env, expected] of cases) {
    it.effect(label(env), () =>
      Effect.gen(function*() {
        const report = yield* refusal(env)
        for (const text of expected) expect(report).toContain(text)
        // A secret's value is never printed.
        expect(report).not.toContain("tooshortkey")
        expect(report).not.toContain("hunter2")
      }))
  }

  it.effect("several bad settings are reported together", () =>
    Effect.gen(function*() {
      const report = yield* refusal({ SHUTDOWN_TIMEOUT_SECONDS: "-5", RUN_RETENTION_DAYS: "0", LOG_FORMAT: "json" })
      // LOG_FORMAT=json is good: the rest are read after it, in one report.
      expect(report).toContain(`SHUTDOWN_TIMEOUT_SECONDS: "-5"`)
      expect(report).toContain(`RUN_RETENTION_DAYS: "0"`)
    }))
})

// The process: a bad logging setting (refused before the logger exists), a
// secret in a bad value (nothing in stdout or stderr shows it), and several
// at once (one report); each ends with exit code 1 within seconds.
describe("a bad setting ends the start at once, naming the variable, its value and what is allowed", () => {
  const asProcesses = cases.filter(([env]) => "LOG_LEVEL" in env || "DATABASE_URL" in env)
  for (const [env, expected] of asProcesses) {
    it(label(env), async () => {
      const ended = await runUntilExit({ ...(await valid()), ...env })
      expect(ended.code, ended.output).toBe(1)
      // Within seconds (generous for a loaded machine): none of these may wait for the database.
      expect(ended.ms).toBeLessThan(10_000)
      for (const text of expected) expect(ended.stderr).toContain(text)
      // A secret's value is never printed.
      expect(ended.output).not.toContain("tooshortkey")
      expect(ended.output).not.toContain("hunter2")
    }, 30_000)
  }

  it("several bad settings are reported together", async () => {
    const ended = await runUntilExit({ ...(await valid()), SHUTDOWN_TIMEOUT_SECONDS: "-5", RUN_RETENTION_DAYS: "0", LOG_FORMAT: "json" })
    expect(ended.code).toBe(1)
    expect(ended.stderr).toContain(`SHUTDOWN_TIMEOUT_SECONDS: "-5"`)
    expect(ended.stderr).toContain(`RUN_RETENTION_DAYS: "0"`)
  }, 30_000)
})

describe("signals", () => {
  it("SIGTERM during start-up: said at once, the start is given up (never serves), the process exits", async () => {
    const port = await freePort()
    const child = spawn(process.execPath, ["dist/main.js"], {
      cwd: root,
      env: {
        ...process.env,
        DATABASE_URL: "",
        PORT: String(port),
        HOST: "127.0.0.1",
        DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "pts-startup-term-")),
        LOG_LEVEL: "Info"
      },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")))
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")))
    const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
      child.once("exit", (code) => resolve({ code, at: Date.now() }))
    )
    // The development keys are made just before the embedded database is opened.
    for (let i = 0; i < 600 && !output.includes("using development secrets"); i++) await sleep(50)
    expect(output).toContain("using development secrets")
    const signalled = Date.now()
    child.kill("SIGTERM")
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000)
    const { at, code } = await exited
    clearTimeout(timer)
    expect(output).toContain(`message="stopping during start-up: the step in progress is given up"`)
    expect(output).not.toContain("Listening on")
    expect(code).toBe(0)
    // A first start creates the database in steps that hold the thread for
    // seconds on a loaded machine: the bound is generous.
    expect(at - signalled).toBeLessThan(20_000)
    expect(output).toMatch(/message=stopped stoppingMillis=\d+/)
  }, 90_000)

  it("SIGTERM when idle (a long poll waiting): says at once that it stops and what it waits for; gone in well under 5 s", async () => {
    const service = await startService({ LOG_LEVEL: "Info" })
    try {
      // A worker's long poll in flight (it would wait 30 s).
      const tenant = await setupTenant(service.url, "http://127.0.0.1:9/", 1)
      const worker = tenant.workers[0]!
      const poll = request(service.url, "GET", `/api/v1/workers/${worker.id}/poll?wait=30`, { bearer: worker.token, timeoutMs: 40_000 })
      await sleep(500)
      const before = service.output().length
      const signalled = Date.now()
      service.kill("SIGTERM")
      const exited = await service.exited
      const stopping = exited.at - signalled
      const said = service.output().slice(before)
      expect(exited.code, said).toBe(0)
      expect(said).toMatch(/message="stopping: no new connections; finishing the requests in flight, handing background work back".*openConnections=\d+.*signal=SIGTERM/)
      expect(said).toMatch(/message=stopped stoppingMillis=\d+/)
      expect(said).not.toContain("supervision failed")
      expect(stopping).toBeLessThan(5_000)
      // The long poll was answered, not cut off.
      expect((await poll).status).toBe(200)
    } finally {
      if (service.isRunning()) service.kill("SIGKILL")
    }
  }, 180_000)
})
