import * as HttpServer from "@effect/platform/HttpServer"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Runtime from "effect/Runtime"
import type { IncomingMessage, ServerResponse } from "node:http"
import { AppConfig } from "../Config/AppConfig.js"
import { Tuning } from "../Config/Tuning.js"
import * as NodeServer from "./NodeServer.js"

/**
 * Calls `f` on the first SIGTERM or SIGINT, once: a terminal's Ctrl-C reaches
 * every process of the group and a process primary passes its own signal on,
 * so one process may get both.
 */
export const onFirstSignal = (f: (signal: NodeJS.Signals) => void): void => {
  let fired = false
  const once = (signal: NodeJS.Signals) => {
    if (fired) return
    fired = true
    f(signal)
  }
  process.on("SIGTERM", once)
  process.on("SIGINT", once)
}

/** What the server reports when the stop begins: the signal and the connections still open then. */
export type OnStopping = (signal: NodeJS.Signals, openConnections: number) => void

/**
 * The Node server, drained on SIGTERM/SIGINT. `server.close()` (run when the
 * app's scope closes) stops accepting and waits for open connections, but a
 * keep-alive connection that goes idle after its last in-flight response
 * would hold it open for the whole keep-alive timeout: so from the signal on,
 * responses carry `Connection: close` and idle connections are closed as soon
 * as they go idle. The app's handler is removed a moment before the listener
 * closes; a request arriving in between is answered 503 rather than left hanging.
 */
export const make = (onStopping?: OnStopping) => {
  const server = NodeServer.make()
  onFirstSignal((signal) => {
    if (onStopping !== undefined) server.getConnections((_error, count) => onStopping(signal, count ?? 0))
    setInterval(() => server.closeIdleConnections(), 100).unref()
    server.on("request", (_request: IncomingMessage, response: ServerResponse) => {
      if (response.headersSent) return
      response.setHeader("connection", "close")
      if (server.listenerCount("request") === 1) {
        response.writeHead(503, { "content-type": "application/json" }).end(JSON.stringify({ error: "service is shutting down" }))
      }
    })
  })
  return server
}

/**
 * The draining server on `PORT` and `HOST`, listening only once the app is
 * served, i.e. after every service it needs has started: until then a
 * connection is refused rather than accepted and left without a handler. A
 * process primary (WEB_CONCURRENCY) hands new connections to a process as
 * soon as it listens, so this is what keeps a starting replacement from
 * swallowing them.
 */
export const layer = Layer.effect(
  HttpServer.HttpServer,
  Effect.gen(function*() {
    const config = yield* AppConfig
    const tuning = yield* Tuning
    const runtime = yield* Effect.runtime<never>()
    // Said at once, so a terminal's Ctrl-C is answered before the wait, not only at its end.
    const stopping: OnStopping = (signal, openConnections) =>
      Runtime.runFork(runtime)(
        Effect.logInfo("stopping: no new connections; finishing the requests in flight, handing background work back").pipe(
          Effect.annotateLogs({
            signal,
            openConnections,
            delaySeconds: tuning.shutdownDelaySeconds,
            exitsWithinSeconds: tuning.shutdownDelaySeconds + tuning.shutdownTimeoutSeconds
          })
        )
      )
    return HttpServer.make({
      address: { _tag: "TcpAddress", hostname: config.host === "::" ? "0.0.0.0" : config.host, port: config.port },
      serve: (app, middleware) =>
        NodeHttpServer.make(() => make(stopping), { port: config.port, host: config.host }).pipe(
          // A port that cannot be bound ends the start, as it would have when the layer was built.
          Effect.orDie,
          Effect.flatMap((server) => middleware === undefined ? server.serve(app) : server.serve(app, middleware))
        )
    })
  })
).pipe(Layer.provideMerge(NodeHttpServer.layerContext))

/**
 * SIGTERM interrupts the app (runMain): readiness answers 503 for
 * SHUTDOWN_DELAY_SECONDS, then the server stops accepting, in-flight
 * requests finish, background fibers hand their work back to the database.
 * If that takes longer than SHUTDOWN_TIMEOUT_SECONDS (after the delay) the process exits anyway.
 */
export const deadline = Layer.effectDiscard(
  Effect.map(Tuning, (tuning) =>
    onFirstSignal(() =>
      setTimeout(() => process.exit(1), (tuning.shutdownDelaySeconds + tuning.shutdownTimeoutSeconds) * 1000).unref()
    ))
)
