import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Headers from "@effect/platform/Headers"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as RpcServer from "@effect/rpc/RpcServer"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import { WorkerAuthentication } from "../Contract/Security.js"
import * as Authentication from "../Auth/Authentication.js"
import { ServiceUnavailable, Unauthorized } from "../Contract/Domain/ApiErrors.js"
import { enabled } from "./ChannelConfig.js"
import { guard } from "./Failures.js"
import { Connections } from "./Connections.js"
import { connectionHeader, handlers } from "./Handlers.js"
import { Pushes } from "./Pushes.js"
import { channelPath, serialization, WorkerRpcs } from "../Contract/WorkerChannelRpcs.js"

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
    // The handlers never die (`Failures.guard`); should one still, only that call fails, not every call on the connection.
    const rpcApp = yield* RpcServer.toHttpAppWebsocket(WorkerRpcs, { disableTracing: true, disableFatalDefects: true })

    const channel = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      if ((request.headers["upgrade"] ?? "").toLowerCase() !== "websocket") {
        return HttpServerResponse.unsafeJson({ error: "the worker channel is a WebSocket: send an upgrade request" }, {
          status: 426,
          headers: { upgrade: "websocket" }
        })
      }
      // The database unreachable while checking the token is a 503, as for a REST call: the worker retries, it is not refused.
      const worker = yield* Effect.either(guard(auth.bearer(Redacted.make(bearerOf(request))), (e): e is Unauthorized => e instanceof Unauthorized))
      if (worker._tag === "Left" && !(worker.left instanceof Unauthorized)) {
        const status = worker.left instanceof ServiceUnavailable ? 503 : 500
        return HttpServerResponse.unsafeJson({ error: worker.left.error }, { status })
      }
      if (worker._tag === "Left") {
        return HttpServerResponse.unsafeJson({ error: worker.left.error }, { status: 401, headers: { "www-authenticate": "Bearer" } })
      }
      const opened = yield* connections.open(worker.right)
      // The handlers find the connection by this header (the rpc server hands them the upgrade's headers).
      const tagged = request.modify({ headers: Headers.set(request.headers, connectionHeader, opened.key) })
      // The connection runs on the request's own fiber, ended by interrupting that fiber when the channel
      // is closed, as the client closing the socket does (the platform interrupts it so). A fiber forked for
      // the connection, with the request's fiber awaiting it, held ~20 KB more per connection.
      return yield* Effect.withFiberRuntime<HttpServerResponse.HttpServerResponse, never, Scope.Scope>((fiber) => {
        opened.end = () => fiber.unsafeInterruptAsFork(HttpServerError.clientAbortFiberId)
        if (opened.closed) opened.end()
        return Effect.provideService(rpcApp, HttpServerRequest.HttpServerRequest, tagged)
      })
    }).pipe(Effect.annotateLogs({ module: "WorkerChannel" }))

    yield* router.get(channelPath, channel)
  })
).pipe(
  Layer.provide(handlers),
  Layer.provide(Layer.mergeAll(Connections.Default, Pushes.Default, serialization, Authentication.layerWorker))
)
