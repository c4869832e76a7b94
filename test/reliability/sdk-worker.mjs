// One worker process for the fault tests: the package's own SDK (`runWorker`
// from the build in dist/), over the transport named by PTS_TRANSPORT. Each
// run handed to it is written to stdout as `run <runId> <epoch ms>` before
// the handler succeeds (after 0-50 ms), so the test counts what every worker
// took and when. It exits only if `runWorker` ends, which a fault must never cause.
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Redacted from "effect/Redacted"
import { webSocket } from "../../dist/WorkerAgent/WebSocket.js"
import { runWorker } from "../../dist/WorkerSdk/WorkerSdk.js"

const env = process.env
const worker = runWorker({
  baseUrl: env.PTS_URL,
  credentials: { workerId: env.PTS_WORKER_ID, token: Redacted.make(env.PTS_WORKER_TOKEN) },
  transport: env.PTS_TRANSPORT,
  webSocket,
  concurrency: Number(env.PTS_CONCURRENCY ?? "4"),
  handler: (run) =>
    Effect.sync(() => process.stdout.write(`run ${run.id} ${Date.now()}\n`)).pipe(
      Effect.zipRight(Effect.sleep(Math.round(Math.random() * 50))),
      Effect.as({ status: "succeeded", stdout: "done" })
    )
})

worker.pipe(
  Effect.provide(FetchHttpClient.layer),
  Logger.withMinimumLogLevel(LogLevel.Warning),
  (effect) => NodeRuntime.runMain(effect)
)
