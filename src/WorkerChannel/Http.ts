import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import * as Headers from "@effect/platform/Headers"
import * as RpcServer from "@effect/rpc/RpcServer"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { WorkerAuthentication } from "../Auth/Security.js"
import * as Authentication from "../Auth/Authentication.js"
import { enabled } from "./Config.js"
import { Connections } from "./Connections.js"
import { connectionHeader, handlers } from "./Handlers.js"
import { Pushes } from "./Pushes.js"
import { channelPath, serialization, WorkerRpcs } from "./Rpcs.js"

const bearerOf = (request: HttpServerRequest.HttpServerRequest): string => {
  const header = request.headers.authorization ?? ""
  return header.toLowerCase().startsWith("bearer ") ? header.slice(7).trim() : ""
}

/**
 * `GET /api/v1/workers/me/channel`: the worker channel (`WorkerRpcs` over a
 * WebSocket, JSON messages), mounted on the API's router beside the HttpApi
 * endpoints. The upgrade request carries the worker's `wkt_` token, checked
 * as every REST call checks it (401 with the same body otherwise); the
 * connection then belongs to that worker until it closes, the worker opens
 * another, or the worker is revoked.
 */
export const layer = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    if (!(yield* enabled)) return
    const auth = yield* WorkerAuthentication
    const connections = yield* Connections
    const rpcApp = yield* RpcServer.toHttpAppWebsocket(WorkerRpcs, { disableTracing: true })

    const channel = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      if ((request.headers["upgrade"] ?? "").toLowerCase() !== "websocket") {
        return HttpServerResponse.unsafeJson({ error: "the worker channel is a WebSocket: send an upgrade request" }, {
          status: 426,
          headers: { upgrade: "websocket" }
        })
      }
      const worker = yield* Effect.either(auth.bearer(Redacted.make(bearerOf(request))))
      if (worker._tag === "Left") {
        return HttpServerResponse.unsafeJson({ error: worker.left.error }, { status: 401, headers: { "www-authenticate": "Bearer" } })
      }
      const opened = yield* connections.open(worker.right)
      // The handlers find the connection by this header (the rpc server hands them the upgrade's headers).
      const tagged = request.modify({ headers: Headers.set(request.headers, connectionHeader, opened.key) })
      // One fiber for the connection, ended by interrupting it when the channel is closed; the request's
      // fiber only awaits it. (Racing the connection against a close signal held two more fibers, ~13 KB each.)
      const connection = yield* Effect.fork(Effect.provideService(rpcApp, HttpServerRequest.HttpServerRequest, tagged))
      opened.end = () => connection.unsafeInterruptAsFork(FiberId.none)
      if (opened.closed) opened.end()
      const exit = yield* Fiber.await(connection)
      // Closed by us (revoked or replaced) ends the request as the client closing it does, not as a failure.
      if (Exit.isFailure(exit) && !Exit.isInterrupted(exit)) return yield* exit
      return HttpServerResponse.empty()
    }).pipe(Effect.annotateLogs({ module: "WorkerChannel" }))

    yield* router.get(channelPath, channel)
  })
).pipe(
  Layer.provide(handlers),
  Layer.provide(Layer.mergeAll(Connections.Default, Pushes.Default, serialization, Authentication.layerWorker))
)
