import { expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { createTrigger, mintRegistrationToken, setupEnvironment } from "../support/Fixtures.js"
import { layer } from "../support/TestApp.js"
import { isTerminal, requestRun, serverUrl, waitForRun } from "../sdk/support.js"
import { repoRoot, run } from "../readme/readme.js"
import { exitCode, waitForOutput, watch } from "../cli/support.js"

/**
 * The worker on a machine without the service: packages/worker packed as it
 * would be published (`npm pack` runs its prepack, the build), installed
 * globally from the tarball into a prefix of its own by a real `npm install`,
 * measured, and started with the dashboard's own commands against a service
 * this test runs. The agent takes its registration token from the
 * environment: the token is never in its command line.
 */

const workerDir = path.join(repoRoot, "packages/worker")

// The dashboard's "Start a worker" commands, as the page shows them (plain browser JavaScript, untyped).
const { installCommand, startCommand } = (await import(path.join(repoRoot, "web/workerstart.js"))) as {
  readonly installCommand: string
  readonly startCommand: (origin: string, registrationToken: string) => string
}

// A program using the SDK from this package, with lines that must not compile
// (declarations that collapsed to \`any\` would let them through).
const sdkConsumer = `
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as Effect from "effect/Effect"
import { runWorker } from "pipeline-trigger-worker"

export const worker = runWorker({
  baseUrl: "http://localhost:3000",
  registrationToken: "wrk_example",
  handler: (run) => Effect.succeed({ status: "succeeded" as const, stdout: "ran " + run.id })
}).pipe(Effect.provide(FetchHttpClient.layer))
// @ts-expect-error a handler returns a run's result
export const wrong = runWorker({ baseUrl: "http://localhost:3000", handler: () => Effect.succeed(42) })
`

const sdkTsconfig = {
  compilerOptions: {
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    strict: true,
    noEmit: true,
    skipLibCheck: false,
    typeRoots: [path.join(repoRoot, "node_modules/@types")],
    types: ["node"]
  },
  files: ["consumer.ts"]
}

/** Bytes on disk under `dir` (what `du` counts as the files' sizes). */
const sizeOf = (dir: string): number =>
  fs.readdirSync(dir, { withFileTypes: true }).reduce((sum, entry) => {
    const full = path.join(dir, entry.name)
    return sum + (entry.isDirectory() ? sizeOf(full) : fs.lstatSync(full).size)
  }, 0)

const npm = (args: ReadonlyArray<string>, cwd: string) =>
  Effect.promise(() => run("npm", args, { cwd, env: { ...process.env, npm_config_update_notifier: "false" }, timeoutMs: 240_000 }))

const tempDir = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "pts-worker-package-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

withLayer(layer(), { excludeTestServices: true })("the worker package", (it) => {
  it.scoped("packs, installs alone (under 30 MB, no dependencies), and the dashboard's commands register it and complete a run", () =>
    Effect.gen(function*() {
      const work = yield* tempDir

      const packed = yield* npm(["pack", "--json", "--pack-destination", work], workerDir)
      expect(packed.code, packed.stderr).toBe(0)
      // npm prints the prepack's output before the JSON.
      const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf("["))) as Array<{ filename: string; files: Array<{ path: string }> }>
      const files = info!.files.map((f) => f.path)
      expect(files).toEqual(expect.arrayContaining([
        "package.json",
        "README.md",
        "bin/pipeline-worker.js",
        "dist/WorkerAgent/Cli.js",
        "dist/WorkerSdk/WorkerSdk.js",
        "dist/WorkerSdk/WorkerSdk.d.ts"
      ]))
      // Neither the server nor the sources come along.
      expect(files.filter((f) => /^(src|migrations|web)\/|dist\/(main|App|Db\/)/.test(f))).toEqual([])

      // A global install, as on a worker machine (`npm install -g`), into a prefix of the test's own.
      const prefix = path.join(work, "global")
      const installed = yield* npm(["install", "-g", "--prefix", prefix, "--no-audit", "--no-fund", path.join(work, info!.filename)], work)
      expect(installed.code, installed.stderr).toBe(0)
      const modules = path.join(prefix, "lib/node_modules")
      // Its peers (effect, @effect/*) are optional and for the SDK: nothing else is installed.
      expect(fs.readdirSync(modules)).toEqual(["pipeline-trigger-worker"])
      const megabytes = sizeOf(prefix) / 1024 / 1024
      expect(megabytes).toBeLessThan(30)

      // The SDK, for a program that has effect and @effect/* (the repository's, linked in):
      // it loads, and its declarations type-check a consumer, wrong lines included.
      const app = path.join(work, "app")
      fs.mkdirSync(path.join(app, "node_modules/@effect"), { recursive: true })
      fs.cpSync(path.join(modules, "pipeline-trigger-worker"), path.join(app, "node_modules/pipeline-trigger-worker"), { recursive: true })
      for (const peer of ["effect", "@effect/platform", "@effect/rpc", "@effect/experimental"]) {
        fs.symlinkSync(path.join(repoRoot, "node_modules", peer), path.join(app, "node_modules", peer))
      }
      fs.writeFileSync(path.join(app, "package.json"), JSON.stringify({ name: "sdk-consumer", private: true, type: "module" }))
      fs.writeFileSync(path.join(app, "consumer.ts"), sdkConsumer)
      fs.writeFileSync(path.join(app, "tsconfig.json"), JSON.stringify(sdkTsconfig))
      const loaded = yield* Effect.promise(() =>
        run(process.execPath, ["-e", `import("pipeline-trigger-worker").then((m) => console.log(typeof m.runWorker))`], { cwd: app, timeoutMs: 60_000 }))
      expect(loaded.stdout.trim(), loaded.stderr).toBe("function")
      const checked = yield* Effect.promise(() =>
        run(process.execPath, [path.join(repoRoot, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], { cwd: app, timeoutMs: 180_000 }))
      expect(checked.stdout + checked.stderr).toBe("")

      // The dashboard's install line names the tarball `npm pack` writes.
      expect(installCommand).toMatch(/^npm install -g \.\/pipeline-trigger-worker-\*\.tgz$/)
      expect(info!.filename).toMatch(/^pipeline-trigger-worker-.*\.tgz$/)

      // Without credentials, the installed agent says where the token goes.
      const bare = yield* Effect.promise(() =>
        run(path.join(prefix, "bin/pipeline-worker"), ["--url", "http://127.0.0.1:9"], {
          cwd: work,
          env: { PATH: process.env.PATH, HOME: work, XDG_CONFIG_HOME: path.join(work, ".config") },
          timeoutMs: 30_000
        }))
      expect(bare.code).toBe(1)
      expect(bare.stderr).toContain("no credentials: set PIPELINE_REGISTRATION_TOKEN=wrk_...")

      const env = yield* setupEnvironment()
      const url = yield* serverUrl
      const registrationToken = yield* mintRegistrationToken(env)
      const command = startCommand(url, registrationToken)
      // The shell line gives the token as an environment assignment, not as an argument.
      expect(command.startsWith(`PIPELINE_REGISTRATION_TOKEN=${registrationToken} pipeline-worker `)).toBe(true)
      expect(command.split(" ").slice(1).join(" ")).not.toContain(registrationToken)

      // The dashboard's start line, run by a shell with the installed bin first on PATH.
      const agent = yield* Effect.acquireRelease(
        Effect.sync(() =>
          watch(spawn("/bin/sh", ["-c", command], {
            cwd: work,
            env: {
              PATH: `${path.join(prefix, "bin")}:${process.env.PATH ?? "/usr/bin:/bin"}`,
              HOME: work,
              XDG_CONFIG_HOME: path.join(work, ".config")
            },
            stdio: ["ignore", "pipe", "pipe"]
          }))
        ),
        (agent) => Effect.promise(() => {
          if (agent.child.exitCode === null && agent.child.signalCode === null) agent.child.kill("SIGKILL")
          return agent.exited
        })
      )
      yield* waitForOutput(agent, /worker (polling for runs|taking runs over the channel)/, 60)
      // What `ps` shows for the agent (the shell's child, unless the shell exec'd it): the installed bin, no token.
      const cmdlineOf = (pid: number) => fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")
      const shell = agent.child.pid!
      const children = fs.readFileSync(`/proc/${shell}/task/${shell}/children`, "utf8").trim().split(/\s+/).filter((p) => p !== "").map(Number)
      const agentPid = [shell, ...children].find((pid) => cmdlineOf(pid).some((arg) => /pipeline-worker(\.js)?$/.test(arg)))
      expect(agentPid).toBeDefined()
      expect(cmdlineOf(agentPid!).join(" ")).not.toContain(registrationToken)

      const trigger = yield* createTrigger(env, { name: "standalone", command: "echo from the standalone worker" })
      const runId = yield* requestRun(env, trigger.id)
      const done = yield* waitForRun(env, trigger.id, runId, isTerminal)
      expect(done).toMatchObject({ status: "succeeded", shortMessage: "from the standalone worker" })

      process.kill(agentPid!, "SIGTERM")
      expect(yield* exitCode(agent)).toBe(0)
    }), 600_000)
})
