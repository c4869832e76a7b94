import * as SqlClient from "@effect/sql/SqlClient"
import { expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { createTrigger, mintRegistrationToken, registerWorker, setupEnvironment } from "../support/Fixtures.js"
import { call, layer } from "../support/TestApp.js"
import { isTerminal, readRun, requestRun, serverUrl, waitForRun } from "../sdk/support.js"
import { defaultTokenFile } from "../../src/WorkerAgent/Options.js"
import { alive, configHome, exitCode, startAgent, waitForOutput } from "./support.js"

const tempDir = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "pipeline-worker-test-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

/** A port that was free a moment ago (listen on 0, read it, close). */
const freePort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer()
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as net.AddressInfo).port
      server.close(() => resolve(port))
    })
  })

withLayer(layer(), { excludeTestServices: true })("pipeline-worker CLI", (it) => {
  it.scoped("registers, runs shell commands (stdout → shortMessage, stderr → errorMessage), keeps its token for the next start", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const url = yield* serverUrl
      const dir = yield* tempDir
      const registrationToken = yield* mintRegistrationToken(env)
      const args = ["--url", url, "--label", "cli-test"]
      const agentEnv = { PIPELINE_REGISTRATION_TOKEN: registrationToken }

      const first = yield* startAgent(args, { cwd: dir, env: agentEnv })
      yield* waitForOutput(first, /worker (polling for runs|taking runs over the channel)/)
      // Kept under the user's config directory, one file per server; nothing in the working directory.
      const tokenFile = defaultTokenFile(url, { XDG_CONFIG_HOME: configHome(dir) })
      expect(tokenFile).toBe(path.join(configHome(dir), "pipeline-worker", `${url.replace(/[^A-Za-z0-9.-]+/g, "_")}.json`))
      expect(fs.readdirSync(dir)).toEqual([".config"])
      const saved = JSON.parse(fs.readFileSync(tokenFile, "utf8"))
      expect(saved.token).toMatch(/^wkt_/)
      expect(fs.statSync(tokenFile).mode & 0o777).toBe(0o600)
      expect(first.output()).not.toContain(saved.token)
      expect(first.output()).not.toContain(registrationToken)

      const hello = yield* createTrigger(env, { name: "hello", command: "echo hello" })
      const helloRun = yield* requestRun(env, hello.id)
      const done = yield* waitForRun(env, hello.id, helloRun, isTerminal)
      expect(done).toMatchObject({ status: "succeeded", shortMessage: "hello", errorMessage: null, faultClass: "none", workerId: saved.workerId })

      // The run's input reaches the command on stdin and in PIPELINE_INPUT; the agent's credentials do not.
      const echo = yield* createTrigger(env, {
        name: "inputs",
        command: "printf '%s\\n' \"$PIPELINE_RUN_ID\" \"$PIPELINE_TRIGGER_ID\" \"${PIPELINE_REGISTRATION_TOKEN:-none}\"; cat; printf '\\n%s' \"$PIPELINE_INPUT\"",
        input: { x: 1 }
      })
      const echoRun = yield* requestRun(env, echo.id)
      const echoed = yield* waitForRun(env, echo.id, echoRun, isTerminal)
      expect(echoed.status).toBe("succeeded")
      const [runId, triggerId, secret, stdin, envInput] = (echoed.shortMessage as string).split("\n")
      expect([runId, triggerId, secret]).toEqual([echoRun, echo.id, "none"])
      expect(JSON.parse(stdin!)).toEqual(echoed.input)
      expect(JSON.parse(envInput!)).toEqual(echoed.input)
      expect(echoed.input.x).toBe(1)

      // SIGTERM: stops cleanly (exit 0).
      first.child.kill("SIGTERM")
      expect(yield* exitCode(first)).toBe(0)

      // Second start with the same (now spent) registration token: reuses the saved worker token.
      const second = yield* startAgent(args, { cwd: dir, env: agentEnv })
      yield* waitForOutput(second, /using the worker token saved/)
      const failing = yield* createTrigger(env, { name: "failing", command: "echo partial; echo boom >&2; exit 3" })
      const failRun = yield* requestRun(env, failing.id)
      const failed = yield* waitForRun(env, failing.id, failRun, isTerminal)
      expect(failed).toMatchObject({ status: "failed", shortMessage: "partial", errorMessage: "boom", faultClass: "client", workerId: saved.workerId })

      // A trigger without a command: its runs fail with a clear message, and nothing from the input runs instead.
      const marker = path.join(dir, "from-input")
      const silent = yield* createTrigger(env, { name: "no command", input: { command: `touch ${marker}`, table: "orders" } })
      const silentRun = yield* requestRun(env, silent.id)
      const noCommand = yield* waitForRun(env, silent.id, silentRun, isTerminal)
      expect(noCommand).toMatchObject({ status: "failed", faultClass: "client" })
      expect(noCommand.errorMessage).toContain("the trigger has no command")
      expect(fs.existsSync(marker)).toBe(false)
      second.child.kill("SIGTERM")
      expect(yield* exitCode(second)).toBe(0)
    }), 90_000)

  it.scoped("runs the trigger's command, never a command in the run's input: the input arrives as data on stdin and in PIPELINE_INPUT", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const url = yield* serverUrl
      const dir = yield* tempDir
      const { token, workerId } = yield* registerWorker(env)
      const agent = yield* startAgent(["--url", url, "--worker-id", workerId], { cwd: dir, env: { PIPELINE_WORKER_TOKEN: token } })
      yield* waitForOutput(agent, /worker (polling for runs|taking runs over the channel)/)
      const trigger = yield* createTrigger(env, {
        name: "reads its input",
        command: `cat > ${path.join(dir, "stdin.json")}; printf '%s' "$PIPELINE_INPUT" > ${path.join(dir, "env.json")}; echo done`,
        input: { ref: "main" }
      })
      // What an operator (or an agent with the trigger's MCP token) might send to take over the worker host:
      // a command, and shell syntax in every value the worker might be tempted to interpolate.
      const marker = path.join(dir, "pwned")
      const injected = {
        command: `touch ${marker}; echo $((6 * 7))-injected`,
        args: [`$(touch ${marker})`, `\`touch ${marker}\``],
        ref: `main; touch ${marker}`
      }
      const requested = yield* call("POST", `/api/v1/triggers/${trigger.id}/run`, { cookie: env.user.cookie, body: { input: injected } })
      expect(requested.status).toBe(201)
      const runId = (requested.body as { id: string }).id
      const run = yield* waitForRun(env, trigger.id, runId, isTerminal)
      expect(run.status).toBe("succeeded")
      // The trigger's command ran and got the input, unchanged, on stdin and in the environment.
      expect(run.shortMessage).toBe("done")
      expect(JSON.parse(fs.readFileSync(path.join(dir, "stdin.json"), "utf8"))).toEqual(injected)
      expect(JSON.parse(fs.readFileSync(path.join(dir, "env.json"), "utf8"))).toEqual(injected)
      // Nothing of the input ever reached a shell: no file, no arithmetic expansion anywhere.
      expect(fs.existsSync(marker)).toBe(false)
      expect(JSON.stringify(run)).not.toContain("42-injected")
      expect(agent.output()).not.toContain("42-injected")
    }), 60_000)

  it.scoped("kills the process tree when the trigger's timeoutSeconds passes; the run ends timed_out", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const url = yield* serverUrl
      const dir = yield* tempDir
      const { token, workerId } = yield* registerWorker(env)
      const agent = yield* startAgent(["--url", url, "--worker-id", workerId], { cwd: dir, env: { PIPELINE_WORKER_TOKEN: token } })
      yield* waitForOutput(agent, /worker (polling for runs|taking runs over the channel)/)
      const pidFile = path.join(dir, "sleep.pid")
      const trigger = yield* createTrigger(env, {
        name: "slow",
        timeoutSeconds: 1,
        command: `sleep 30 & echo $! > ${pidFile}; wait`
      })
      const runId = yield* requestRun(env, trigger.id)
      const run = yield* waitForRun(env, trigger.id, runId, isTerminal)
      expect(run).toMatchObject({ status: "timed_out", faultClass: "client" })
      const pid = Number(fs.readFileSync(pidFile, "utf8").trim())
      expect(pid).toBeGreaterThan(0)
      // The grandchild `sleep` is gone too: the whole process group was killed.
      yield* Effect.suspend(() => alive(pid) ? Effect.fail("alive") : Effect.void).pipe(
        Effect.retry(Schedule.spaced("100 millis").pipe(Schedule.upTo("5 seconds")))
      )
      expect(alive(pid)).toBe(false)
      // The agent keeps working afterwards.
      const quick = yield* createTrigger(env, { name: "quick", command: "echo still here" })
      const quickRun = yield* requestRun(env, quick.id)
      expect(yield* waitForRun(env, quick.id, quickRun, isTerminal)).toMatchObject({ status: "succeeded", shortMessage: "still here" })
    }), 60_000)

  it.scoped("a cancel kills the command's process group; the agent completes the run, recorded cancelled", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const url = yield* serverUrl
      const dir = yield* tempDir
      const { token, workerId } = yield* registerWorker(env)
      const agent = yield* startAgent(["--url", url, "--worker-id", workerId], { cwd: dir, env: { PIPELINE_WORKER_TOKEN: token } })
      yield* waitForOutput(agent, /worker (polling for runs|taking runs over the channel)/)
      const pidFile = path.join(dir, "sleep.pid")
      const trigger = yield* createTrigger(env, {
        name: "cancellable",
        heartbeatTimeoutSeconds: 5,
        command: `sleep 60 & echo $! > ${pidFile}; wait`
      })
      const runId = yield* requestRun(env, trigger.id)
      yield* waitForRun(env, trigger.id, runId, (run) => run.status === "running" && fs.existsSync(pidFile))
      const pid = Number(fs.readFileSync(pidFile, "utf8").trim())
      expect(alive(pid)).toBe(true)
      const cancelled = yield* call("POST", `/api/v1/runs/${runId}/cancel`, { cookie: env.user.cookie })
      expect(cancelled.status).toBe(200)
      const run = yield* waitForRun(env, trigger.id, runId, isTerminal)
      // Acknowledged by the agent (its note), not ended by the grace period (30 s).
      expect(run).toMatchObject({ status: "cancelled", faultClass: "none", errorMessage: "cancelled: the handler was interrupted" })
      // The agent's log tells what the service recorded: cancelled, not the "failed" its acknowledgement carries.
      yield* waitForOutput(agent, /run completed/)
      expect(agent.output()).toMatch(/run completed\n(  \w+: .*\n)*  status: cancelled\n/)
      expect(agent.output()).not.toMatch(/status: failed/)
      yield* Effect.suspend(() => alive(pid) ? Effect.fail("alive") : Effect.void).pipe(
        Effect.retry(Schedule.spaced("100 millis").pipe(Schedule.upTo("5 seconds")))
      )
      expect(alive(pid)).toBe(false)
    }), 60_000)

  it.scoped("SIGTERM lets a running command finish before the agent exits", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const url = yield* serverUrl
      const dir = yield* tempDir
      const { token, workerId } = yield* registerWorker(env)
      // Only the token: the agent asks the service which worker it belongs to (GET /workers/me).
      const agent = yield* startAgent(["--url", url, "--token", token], { cwd: dir })
      yield* waitForOutput(agent, /worker (polling for runs|taking runs over the channel)/)
      const trigger = yield* createTrigger(env, { name: "finishing", command: "sleep 1.5; echo finished" })
      const runId = yield* requestRun(env, trigger.id)
      yield* waitForRun(env, trigger.id, runId, (r) => r.status === "running")
      // Running on the agent too: a run pushed started is "running" at the service before the agent has taken it in hand.
      yield* waitForOutput(agent, /run started/)
      agent.child.kill("SIGTERM")
      expect(yield* exitCode(agent)).toBe(0)
      expect(yield* readRun(env, trigger.id, runId)).toMatchObject({ status: "succeeded", shortMessage: "finished", workerId })
      expect(agent.output()).toMatch(/stopped (polling|taking runs)/)
    }), 60_000)

  it.scoped("a revoked or invalid worker token: exits non-zero with a clear message", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const url = yield* serverUrl
      const dir = yield* tempDir
      const { token, workerId } = yield* registerWorker(env)
      // No endpoint deletes a worker yet; removing its row is what revocation amounts to.
      const sql = yield* SqlClient.SqlClient
      yield* sql`DELETE FROM workers WHERE id = ${workerId}`.pipe(Effect.orDie)

      const revoked = yield* startAgent(["--url", url, "--token", token, "--worker-id", workerId], { cwd: dir })
      expect(yield* exitCode(revoked)).toBe(1)
      expect(revoked.output()).toContain("worker token refused (401)")
      expect(revoked.output()).not.toContain(token)

      // A saved token that no longer works names the file to delete.
      const tokenFile = defaultTokenFile(url, { XDG_CONFIG_HOME: configHome(dir) })
      fs.mkdirSync(path.dirname(tokenFile), { recursive: true })
      fs.writeFileSync(tokenFile, JSON.stringify({ workerId, token, url }), { mode: 0o600 })
      const saved = yield* startAgent(["--url", url], { cwd: dir })
      expect(yield* exitCode(saved)).toBe(1)
      expect(saved.output()).toContain("delete that file to register again")

      const spent = yield* startAgent(["--url", url, "--registration-token", "wrk_never-minted", "--token-file", path.join(dir, "other")], { cwd: dir })
      expect(yield* exitCode(spent)).toBe(1)
      expect(spent.output()).toContain("registration token refused")
    }), 60_000)

  it.scoped("a saved token is used only for the server that issued it; a new registration token registers anew", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const url = yield* serverUrl
      const dir = yield* tempDir
      const first = yield* mintRegistrationToken(env)
      const agent = yield* startAgent(["--url", url, "--registration-token", first], { cwd: dir })
      yield* waitForOutput(agent, /worker (polling for runs|taking runs over the channel)/)
      agent.child.kill("SIGTERM")
      expect(yield* exitCode(agent)).toBe(0)
      const tokenFile = defaultTokenFile(url, { XDG_CONFIG_HOME: configHome(dir) })
      const firstWorker = JSON.parse(fs.readFileSync(tokenFile, "utf8")).workerId

      // The same token file named for another server: refused with a message naming both, not tried there.
      const other = `http://127.0.0.1:${yield* Effect.promise(() => freePort())}`
      const elsewhere = yield* startAgent(["--url", other, "--token-file", tokenFile], { cwd: dir })
      expect(yield* exitCode(elsewhere)).toBe(1)
      expect(elsewhere.output()).toContain(`issued by ${url}, not ${other}`)

      // Another registration token for the same server registers a new worker and saves it.
      const second = yield* mintRegistrationToken(env)
      const again = yield* startAgent(["--url", url, "--registration-token", second], { cwd: dir })
      yield* waitForOutput(again, /worker (polling for runs|taking runs over the channel)/)
      expect(again.output()).not.toContain("using the worker token saved")
      const secondWorker = JSON.parse(fs.readFileSync(tokenFile, "utf8")).workerId
      expect(secondWorker).not.toBe(firstWorker)
      again.child.kill("SIGTERM")
      expect(yield* exitCode(again)).toBe(0)
    }), 60_000)

  it.scoped("--version and --help need no server; --help names every option and environment variable", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const version = yield* startAgent(["--version"], { cwd: dir })
      expect(yield* exitCode(version)).toBe(0)
      const pkg = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, "../../package.json"), "utf8"))
      expect(version.output().trim()).toBe(`pipeline-worker ${pkg.version}`)
      const help = yield* startAgent(["--help"], { cwd: dir })
      expect(yield* exitCode(help)).toBe(0)
      for (
        const name of [
          "--url", "--registration-token", "--token", "--worker-id", "--token-file", "--label", "--concurrency",
          "--shutdown-grace", "--help", "--version", "PIPELINE_URL", "PIPELINE_REGISTRATION_TOKEN",
          "PIPELINE_WORKER_TOKEN", "PIPELINE_WORKER_ID", "PIPELINE_TOKEN_FILE", "PIPELINE_WORKER_LABEL",
          "PIPELINE_CONCURRENCY", "PIPELINE_SHUTDOWN_GRACE_SECONDS", "XDG_CONFIG_HOME", "--non-retryable-exit-codes",
          "PIPELINE_NON_RETRYABLE_EXIT_CODES"
        ]
      ) expect(help.output()).toContain(name)
    }), 30_000)

  it.scoped("a bad URL exits at once; an unreachable server is retried with backoff and logged", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const bad = yield* startAgent(["--url", "localhost:3000", "--registration-token", "wrk_x"], { cwd: dir })
      expect(yield* exitCode(bad)).toBe(1)
      expect(bad.output()).toContain("invalid service URL")

      // A port nobody listens on: the agent keeps trying instead of exiting.
      const port = yield* Effect.promise(() => freePort())
      const closed = yield* startAgent(["--url", `http://127.0.0.1:${port}`, "--registration-token", "wrk_x"], { cwd: dir })
      yield* waitForOutput(closed, /connecting to the service failed, retrying with backoff/)
      yield* waitForOutput(closed, /ECONNREFUSED/)
      expect(closed.child.exitCode).toBeNull()
      closed.child.kill("SIGTERM")
      expect(yield* exitCode(closed)).toBe(0)
    }), 60_000)
})
