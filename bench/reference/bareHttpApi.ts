/**
 * The floor a request can cost on this machine: one HttpApi GET endpoint
 * with no middleware, database or logging, served by `@effect/platform-node`
 * the same way the service is. `requests` measures it beside the service's
 * own endpoints. Run as its own process: `node --import tsx bench/reference/bareHttpApi.ts <port>`.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Layer from "effect/Layer"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { createServer } from "node:http"

const Api = HttpApi.make("bare").add(
  HttpApiGroup.make("bare").add(HttpApiEndpoint.get("health", "/health").addSuccess(Schema.Struct({ status: Schema.String })))
)
const Live = HttpApiBuilder.group(Api, "bare", (handlers) => handlers.handle("health", () => Effect.succeed({ status: "ok" })))

HttpApiBuilder.serve().pipe(
  Layer.provide(HttpApiBuilder.api(Api).pipe(Layer.provide(Live))),
  Layer.provide(NodeHttpServer.layer(createServer, { port: Number(process.argv[2] ?? 0), host: "127.0.0.1" })),
  Layer.launch,
  NodeRuntime.runMain
)
