import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"

/**
 * The API speaks JSON only. Before any route decodes a body:
 *
 * - a body declared as anything but `application/json` (charset allowed) is
 *   415, so multipart and form bodies never reach a parser (the platform
 *   would parse multipart and url-encoded bodies, and read `[1,2,3]` sent as
 *   a form as an empty object);
 * - a body without a content type is read as JSON;
 * - JSON nested deeper than `maxDepth` is 400, found by a linear scan that
 *   never recurses: a decoder or error formatter walking 100,000 levels of
 *   user input would exhaust the stack.
 *
 * Paths outside `/api/` (the dashboard's files) have no bodies and pass.
 */
export const maxDepth = 64

const hasBody = (request: HttpServerRequest.HttpServerRequest): boolean => {
  const length = request.headers["content-length"]
  if (length !== undefined) return length.trim() !== "0"
  return request.headers["transfer-encoding"] !== undefined
}

/** `application/json`, with or without parameters such as `charset=utf-8`. */
export const isJson = (contentType: string | undefined): boolean =>
  contentType === undefined || contentType.split(";")[0]!.trim().toLowerCase() === "application/json"

/**
 * True when the text nests arrays/objects deeper than `limit` (strings and
 * escapes skipped). A string is skipped by searching for its closing quote
 * (`indexOf`, native) rather than by looking at each of its characters: a
 * log call's body is mostly string, and the per-character loop had been one
 * of the largest costs of each line a worker sends.
 */
export const nestsDeeperThan = (text: string, limit: number): boolean => {
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 34 /* " */) {
      // The closing quote: the next one not escaped (preceded by an even run of backslashes).
      let end = text.indexOf("\"", i + 1)
      while (end !== -1) {
        let slashes = 0
        while (text.charCodeAt(end - 1 - slashes) === 92 /* \ */) slashes++
        if (slashes % 2 === 0) break
        end = text.indexOf("\"", end + 1)
      }
      // An unterminated string: nothing after it nests (the parser refuses the text).
      if (end === -1) return false
      i = end
    } else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > limit) return true
    } else if (c === 93 /* ] */ || c === 125 /* } */) {
      depth--
    }
  }
  return false
}

const reject = (status: number, error: string) => Effect.succeed(HttpServerResponse.unsafeJson({ error }, { status }))

export const middleware = HttpMiddleware.make((app) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    if (!request.url.startsWith("/api/")) return app
    const contentType = request.headers["content-type"]
    if (!hasBody(request)) {
      if (isJson(contentType)) return app
      // No body, but a declared type the platform would try to parse (an empty multipart body
      // fails with a defect): without a body the type means nothing, so it is dropped.
      const { "content-type": _, ...headers } = request.headers
      return Effect.provideService(app, HttpServerRequest.HttpServerRequest, request.modify({ headers }))
    }
    if (!isJson(contentType)) {
      return reject(415, `unsupported content type ${JSON.stringify(contentType!.slice(0, 100))}: send application/json`)
    }
    // The text is cached by the request: the route's decoder reads it again without a second read of the socket.
    return Effect.flatMap(Effect.either(request.text), (text) =>
      text._tag === "Right" && nestsDeeperThan(text.right, maxDepth)
        ? reject(400, `malformed request body: JSON nested deeper than ${maxDepth} levels`)
        : app)
  })
)
