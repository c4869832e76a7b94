import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { createServer } from "node:http"
import { HttpLive } from "./App.js"
import { AppConfig, layer as AppConfigLive } from "./Config/AppConfig.js"
import * as Logging from "./Config/Logging.js"
import * as Database from "./Db/Database.js"

const ServerLive = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) => NodeHttpServer.layer(createServer, { port: config.port, host: config.host }))
)

/**
 * SIGTERM interrupts the app (runMain): the server stops accepting, in-flight
 * requests finish, background fibers hand their work back to the database.
 * If that takes longer than SHUTDOWN_TIMEOUT_SECONDS the process exits anyway.
 */
const ShutdownDeadline = Layer.effectDiscard(
  Effect.map(AppConfig, (config) => {
    const arm = () => setTimeout(() => process.exit(1), config.shutdownTimeoutSeconds * 1000).unref()
    process.once("SIGTERM", arm)
    process.once("SIGINT", arm)
  })
)

HttpLive.pipe(
  Layer.provide(ServerLive),
  Layer.provide(Database.layer),
  Layer.merge(ShutdownDeadline),
  Layer.provide(AppConfigLive),
  Layer.provide(Logging.layer),
  Layer.launch,
  NodeRuntime.runMain({ disablePrettyLogger: true })
)
