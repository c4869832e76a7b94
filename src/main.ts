import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { createServer } from "node:http"
import { HttpLive } from "./App.js"
import { AppConfig, layer as AppConfigLive } from "./Config/AppConfig.js"
import * as Database from "./Db/Database.js"

const ServerLive = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) => NodeHttpServer.layer(createServer, { port: config.port, host: config.host }))
)

HttpLive.pipe(
  Layer.provide(ServerLive),
  Layer.provide(Database.layer),
  Layer.provide(AppConfigLive),
  Layer.launch,
  NodeRuntime.runMain
)
