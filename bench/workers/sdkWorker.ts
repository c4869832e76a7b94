/**
 * A worker host for the bench: the project's worker SDK (`runWorker` from
 * the built `dist/`, as a user imports it) over the worker channel, with a
 * handler that succeeds at once, one `runWorker` per worker named in
 * `BENCH_SDK_WORKERS` (a JSON array of `{id, token}`), each with
 * `BENCH_SDK_CONCURRENCY` slots. Logs at Warning, as a busy host would run
 * it (the SDK logs a line per run at Info). Writes "ready" on stdout once
 * every worker is connected, and runs until killed.
 */
import { NodeHttpClient } from "@effect/platform-node"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Redacted from "effect/Redacted"
import WS from "ws"
import { runWorker } from "../../dist/WorkerSdk/WorkerSdk.js"

const baseUrl = process.env.BENCH_SDK_URL!
const workers: ReadonlyArray<{ readonly id: string; readonly token: string }> = JSON.parse(process.env.BENCH_SDK_WORKERS!)
const concurrency = Number(process.env.BENCH_SDK_CONCURRENCY ?? 50)

let open = 0
const webSocket = (url: string, options: { readonly headers: Record<string, string> }) => {
  const socket = new WS(url, { headers: options.headers, perMessageDeflate: false })
  socket.once("open", () => {
    if (++open === workers.length) process.stdout.write("ready\n")
  })
  return socket as unknown as globalThis.WebSocket
}

Effect.forEach(workers, (worker) =>
  runWorker({
    baseUrl,
    credentials: { workerId: worker.id, token: Redacted.make(worker.token) },
    concurrency,
    transport: "channel",
    webSocket,
    handler: () => Effect.succeed({ status: "succeeded" as const, stdout: "ok" })
  }), { concurrency: "unbounded", discard: true }).pipe(
  Effect.provide(NodeHttpClient.layerUndici),
  Logger.withMinimumLogLevel(LogLevel.Warning),
  Effect.runPromise
).catch((error) => {
  process.stderr.write(`sdk worker host failed: ${String(error)}\n`)
  process.exit(1)
})

// Exits normally when told to stop, so a profile asked for with --cpu-prof is written.
process.on("SIGTERM", () => process.exit(0))
