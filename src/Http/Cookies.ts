import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"

/**
 * Adds a `Set-Cookie` header to the response of the current request. Handlers
 * return typed values, so the cookie is attached as the response goes out.
 */
export const setCookie = (value: string): Effect.Effect<void> =>
  HttpApp.appendPreResponseHandler((_request, response) =>
    Effect.succeed(HttpServerResponse.setHeader(response, "set-cookie", value))
  )
