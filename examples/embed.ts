/**
 * Embedding the scheduler in an Effect program.
 *
 * The program runs the scheduler on an embedded Postgres in a directory of
 * its own, mounts the HTTP API on its own server, creates an environment and
 * a trigger through the typed services, runs an in-process worker (the worker
 * SDK against the mounted API), starts a run and waits for the run's terminal
 * event on the Stream.
 *
 *   npx tsx examples/embed.ts
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpServer from "@effect/platform/HttpServer"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import { createServer } from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { PipelineTriggers, runWorker } from "../src/index.js"

/** Creates a trigger, runs it on an in-process worker and answers the run's terminal event. */
export const main = Effect.gen(function*() {
  const pipelines = yield* PipelineTriggers.PipelineTriggers

  const env = yield* pipelines.createEnvironment("example")
  const trigger = yield* pipelines.createTrigger(env.environmentId, {
    name: "greet",
    input: { who: "world" },
    heartbeatTimeoutSeconds: 10
  })

  // The worker: the SDK against the HTTP API this program mounts.
  const server = yield* HttpServer.HttpServer
  const address = server.address
  const baseUrl = address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : "http://localhost:3000"
  const credentials = yield* pipelines.registerWorker(env.environmentId, "in-process")
  yield* runWorker({
    baseUrl,
    credentials,
    handler: (run) =>
      Effect.succeed({
        status: "succeeded" as const,
        stdout: `hello, ${(run.input as { who: string }).who}`,
        costUsd: "0.0001"
      })
  }).pipe(Effect.provide(FetchHttpClient.layer), Effect.forkScoped)

  // Subscribe before starting the run, so its end cannot slip past.
  const terminalRuns = yield* pipelines.subscribeTerminalRuns
  const run = yield* pipelines.startRun(trigger.id)
  yield* Effect.logInfo("run started").pipe(Effect.annotateLogs({ runId: run.id }))

  const ended = yield* terminalRuns.pipe(
    Stream.filter((event) => event.id === run.id),
    Stream.runHead,
    Effect.timeout("30 seconds"),
    Effect.flatMap(Option.match({
      onNone: () => Effect.dieMessage("the terminal-run stream ended"),
      onSome: Effect.succeed
    }))
  )
  yield* Effect.logInfo("run ended").pipe(
    Effect.annotateLogs({ runId: ended.id, status: ended.status, shortMessage: ended.shortMessage })
  )
  return ended
}).pipe(Effect.scoped)

/**
 * The scheduler on an embedded database in `dataDir`, with its HTTP API on a
 * server of this program (a free port on 127.0.0.1).
 */
export const layer = (dataDir: string) =>
  PipelineTriggers.layerHttp.pipe(
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
    Layer.provideMerge(PipelineTriggers.layerEmbedded({ dataDir }))
  )

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "pipeline-embed-"))
  main.pipe(
    Effect.provide(layer(dataDir)),
    Effect.ensuring(Effect.sync(() => fs.rmSync(dataDir, { recursive: true, force: true }))),
    NodeRuntime.runMain
  )
}
