import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { repoRoot, run } from "../readme/readme.js"

/**
 * The package as a user gets it: `npm pack`, the tarball installed into a
 * fresh project, an embedding program run with plain `node` (no TypeScript
 * loader anywhere) and a consumer's TypeScript checked against the shipped
 * declarations.
 *
 * The install is a real `npm install <tarball>`: it proves the `dependencies`
 * are complete (nothing at run time comes from a devDependency). It is
 * `--prefer-offline`, so the packages come from npm's cache that `npm ci`
 * filled; no registry round trip unless the cache lacks one.
 */

// The embedding program of examples/embed.ts, as a JavaScript user writes it.
const embedProgram = `
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpServer from "@effect/platform/HttpServer"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect, Layer, Stream } from "effect"
import { createServer } from "node:http"
import { PipelineTriggers } from "pipeline-trigger-service"
import { runWorker } from "pipeline-trigger-service/worker"

const main = Effect.gen(function*() {
  const pipelines = yield* PipelineTriggers.PipelineTriggers
  const env = yield* pipelines.createEnvironment("example")
  const trigger = yield* pipelines.createTrigger(env.environmentId, { name: "greet", input: { who: "world" } })

  const address = (yield* HttpServer.HttpServer).address
  const credentials = yield* pipelines.registerWorker(env.environmentId, "in-process")
  yield* runWorker({
    baseUrl: "http://127.0.0.1:" + address.port,
    credentials,
    handler: (run) => Effect.succeed({ status: "succeeded", stdout: "hello, " + run.input.who, costUsd: "0.0001" })
  }).pipe(Effect.provide(FetchHttpClient.layer), Effect.forkScoped)

  const ended = yield* pipelines.subscribeTerminalRuns
  const run = yield* pipelines.startRun(trigger.id)
  const last = yield* ended.pipe(Stream.filter((r) => r.id === run.id), Stream.runHead, Effect.flatten, Effect.timeout("60 seconds"))
  console.log("RESULT " + JSON.stringify({ status: last.status, shortMessage: last.shortMessage, costUsd: last.costUsd }))
}).pipe(Effect.scoped)

const layer = PipelineTriggers.layerHttp.pipe(
  Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
  Layer.provideMerge(PipelineTriggers.layerEmbedded({ dataDir: process.argv[2] }))
)

main.pipe(Effect.provide(layer), NodeRuntime.runMain)
`

// A consumer's TypeScript: every entry point, and lines that must NOT compile,
// so declarations that collapsed to \`any\` fail the check too.
const consumerSource = `
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as Effect from "effect/Effect"
import { NotFound, PipelineTriggers } from "pipeline-trigger-service"
import { makeClient } from "pipeline-trigger-service/client"
import { runWorker } from "pipeline-trigger-service/worker"

export const startOne = Effect.gen(function*() {
  const pipelines = yield* PipelineTriggers.PipelineTriggers
  const env = yield* pipelines.createEnvironment("typed")
  const trigger = yield* pipelines.createTrigger(env.environmentId, { name: "typed", timeoutSeconds: 60 })
  const run = yield* pipelines.startRun(trigger.id)
  const id: string = run.id
  // @ts-expect-error a run's status is a union of string literals
  const wrong: number = run.status
  return { id, wrong }
}).pipe(Effect.provide(PipelineTriggers.layerEmbedded({ dataDir: "./data" })))

export const workspace = Effect.gen(function*() {
  const client = yield* makeClient("http://localhost:3000", { bearer: "pwk_example" })
  // @ts-expect-error the client has only the API's groups
  client.noSuchGroup
  // @ts-expect-error a workspace name is a string
  yield* client.workspaces.create({ payload: { name: 42 } })
  const created = yield* client.workspaces.create({ payload: { name: "typed" } })
  const name: string = created.name
  return name
}).pipe(Effect.catchIf((e): e is NotFound => e instanceof NotFound, () => Effect.succeed("")), Effect.provide(FetchHttpClient.layer))

export const worker = runWorker({
  baseUrl: "http://localhost:3000",
  registrationToken: "wrk_example",
  handler: (run) => Effect.succeed({ status: "succeeded" as const, stdout: "ran " + run.id })
}).pipe(Effect.provide(FetchHttpClient.layer))
`

const consumerTsconfig = {
  compilerOptions: {
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    strict: true,
    noEmit: true,
    // Our declarations are checked too, not only the consumer's file.
    skipLibCheck: false,
    // A Node consumer has @types/node; this project borrows the repository's.
    typeRoots: [path.join(repoRoot, "node_modules/@types")],
    types: ["node"]
  },
  files: ["consumer.ts"]
}

const npm = (args: ReadonlyArray<string>, cwd: string, timeoutMs = 240_000) =>
  run("npm", args, { cwd, env: { ...process.env, npm_config_update_notifier: "false" }, timeoutMs })

describe("the package", () => {
  it("packs, installs into a fresh project, runs with plain node and type-checks a consumer", async () => {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "pts-pack-"))
    try {
      // dist/ is current (the tests' global setup builds it), so pack skips
      // `prepare`, which runs the same build (`npm ci` runs it in CI).
      const packed = await npm(["pack", "--ignore-scripts", "--json", "--pack-destination", work], repoRoot)
      expect(packed.code, packed.stderr).toBe(0)
      const [info] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>
      const files = info!.files.map((f) => f.path)
      expect(files).toEqual(expect.arrayContaining([
        "dist/main.js",
        "dist/index.js",
        "dist/index.d.ts",
        "dist/Client.d.ts",
        "dist/WorkerSdk/WorkerSdk.d.ts",
        "dist/WorkerAgent/Cli.js",
        // The schema: read by the installed package from beside dist/.
        "migrations/0001_initial.sql",
        "bin/pipeline-worker.js",
        "web/index.html",
        "package.json"
      ]))
      expect(files.filter((f) => f.startsWith("test/") || f.startsWith("node_modules/") || f.endsWith(".tsbuildinfo"))).toEqual([])

      const app = path.join(work, "app")
      fs.mkdirSync(app)
      fs.writeFileSync(path.join(app, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }))
      const installed = await npm(
        ["install", path.join(work, info!.filename), "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts"],
        app
      )
      expect(installed.code, installed.stderr).toBe(0)
      const manifest = JSON.parse(fs.readFileSync(path.join(app, "node_modules/pipeline-trigger-service/package.json"), "utf8"))
      expect(manifest.private).toBeUndefined()
      // No TypeScript loader comes with the package.
      expect(fs.existsSync(path.join(app, "node_modules/tsx"))).toBe(false)

      // The embedding program, with plain node, on a fresh data directory.
      fs.writeFileSync(path.join(app, "embed.mjs"), embedProgram)
      const dataDir = path.join(work, "data")
      const env: Record<string, string | undefined> = { ...process.env, DATABASE_URL: undefined, NODE_OPTIONS: undefined }
      const embedded = await run(process.execPath, ["embed.mjs", dataDir], { cwd: app, env, timeoutMs: 240_000 })
      const output = embedded.stdout + embedded.stderr
      expect(embedded.code, output).toBe(0)
      expect(output).toContain(`RESULT {"status":"succeeded","shortMessage":"hello, world","costUsd":"0.0001"}`)
      expect(fs.existsSync(path.join(dataDir, "pg"))).toBe(true)

      // The installed bin runs the compiled agent.
      const version = await run(path.join(app, "node_modules/.bin/pipeline-worker"), ["--version"], { cwd: app, timeoutMs: 30_000 })
      expect(version.stdout.trim(), version.stderr).toBe(`pipeline-worker ${manifest.version}`)

      // A consumer's TypeScript against the shipped .d.ts, with the repository's compiler.
      fs.writeFileSync(path.join(app, "consumer.ts"), consumerSource)
      fs.writeFileSync(path.join(app, "tsconfig.json"), JSON.stringify(consumerTsconfig, null, 2))
      const tsc = path.join(repoRoot, "node_modules/typescript/bin/tsc")
      const checked = await run(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: app, timeoutMs: 180_000 })
      expect(checked.stdout + checked.stderr).toBe("")
      expect(checked.code).toBe(0)
    } finally {
      fs.rmSync(work, { recursive: true, force: true })
    }
  }, 600_000)
})
