import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as LogLevel from "effect/LogLevel"
import { randomUUID } from "node:crypto"
import * as Metrics from "./Metrics.js"

export const requestIdHeader = "x-request-id"

// A caller's id is kept when it is a plain token (no spaces, quotes or control
// characters that could forge log fields), else replaced by a fresh one.
const acceptable = /^[A-Za-z0-9._:/+=@-]{1,128}$/

/** The request id to use: the caller's `X-Request-Id` when acceptable, else a new UUID. */
export const requestIdOf = (header: string | undefined): string =>
  header !== undefined && acceptable.test(header) ? header : randomUUID()

const methods = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])

/**
 * Per request: the request id (honoured or generated, echoed in the answer's
 * `X-Request-Id`, annotating every log line written while it is handled),
 * one Info line when it is answered (method, route template, status,
 * duration, request id; never the raw path or query, which can carry
 * tokens, nor any header) and the HTTP metrics. The status is read from the
 * response as it is sent, so error answers made by the server count too.
 * `routeOf` names a request's route template (`RouteTemplates.make`).
 */
export const middleware = (routeOf: (url: string) => string) =>
  HttpMiddleware.make((app) =>
    Effect.withFiberRuntime<HttpServerResponse.HttpServerResponse, Effect.Effect.Error<typeof app>, Effect.Effect.Context<typeof app>>((fiber) => {
      const started = performance.now()
      const request = fiber.currentContext.unsafeMap.get(HttpServerRequest.HttpServerRequest.key) as HttpServerRequest.HttpServerRequest
      const requestId = requestIdOf(request.headers[requestIdHeader])
      let status = 0
      const answered = HttpApp.appendPreResponseHandler((_request, response) => {
        status = response.status
        return Effect.succeed(HttpServerResponse.setHeader(response, requestIdHeader, requestId))
      })
      const done = Effect.suspend(() => {
        const durationMs = performance.now() - started
        const route = routeOf(request.url)
        const method = methods.has(request.method) ? request.method : "OTHER"
        // No answer sent: the client went away (nginx's 499) or the server failed before answering.
        const final = status === 0 ? 499 : status
        Metrics.record.http(method, route, final, durationMs)
        if (LogLevel.lessThan(LogLevel.Info, fiber.getFiberRef(FiberRef.currentMinimumLogLevel))) return Effect.void
        return Effect.logInfo("http request").pipe(Effect.annotateLogs({
          method,
          route,
          status: final,
          durationMs: Math.round(durationMs * 10) / 10,
          requestId
        }))
      })
      return answered.pipe(
        Effect.zipRight(app),
        Effect.annotateLogs("requestId", requestId),
        Effect.ensuring(done)
      )
    })
  )
