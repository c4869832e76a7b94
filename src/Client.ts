import * as Sse from "@effect/experimental/Sse"
import * as HttpApiClient from "@effect/platform/HttpApiClient"
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Effect from "effect/Effect"
import type * as ParseResult from "effect/ParseResult"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { Api } from "./Contract/Api.js"
// Named here so the emitted declarations refer to the contract's module, not
// to `index.js` (which re-exports them and would pull the server into the
// worker package's type graph: test/package/worker-package.test.ts).
import type * as ApiErrors from "./Contract/Domain/ApiErrors.js"
import type { Trigger } from "./Contract/TriggersApi.js"
import { Run } from "./Contract/Domain/Run.js"

/**
 * The typed client of the whole HTTP API, derived from the same `HttpApi`
 * definition the server implements: every endpoint is a method of its group
 * (`client.triggers.create(...)`, `client.workerProtocol.poll(...)`), and each
 * declared error comes back as its class (`Unauthorized`, `NotFound`, ...).
 */
export type PipelineClient = Effect.Effect.Success<ReturnType<typeof makeClient>>

/** A trigger as the API answers it (`client.triggers.get` and the like). */
export type { Trigger }

/** The errors the API declares; each endpoint's method fails with the ones its group lists. */
export type ApiError =
  | ApiErrors.BadRequest
  | ApiErrors.Conflict
  | ApiErrors.Forbidden
  | ApiErrors.InternalError
  | ApiErrors.NotFound
  | ApiErrors.PayloadTooLarge
  | ApiErrors.ServiceUnavailable
  | ApiErrors.TooManyRequests
  | ApiErrors.Unauthorized
  | ApiErrors.ValidationError

export interface ClientOptions {
  /** A `pwk_` API key or a `wkt_` worker token, sent as `Authorization: Bearer`. */
  readonly bearer?: string | Redacted.Redacted<string> | undefined
  /** The session cookie, `auth_token=<JWT>` (as `Set-Cookie` gave it). */
  readonly cookie?: string | undefined
  /**
   * The `Origin` sent with cookie calls: the service refuses mutating cookie
   * calls without an allowed one (its `PUBLIC_URL` by default).
   */
  readonly origin?: string | undefined
  /** Any further change to the underlying `HttpClient` (retries, tracing, headers). */
  readonly transformClient?: ((client: HttpClient.HttpClient) => HttpClient.HttpClient) | undefined
}

/**
 * A client for the service at `baseUrl` (its origin, e.g. `http://localhost:3000`;
 * the `/api/v1` prefix is part of the API definition). Needs an `HttpClient`:
 * provide `FetchHttpClient.layer` or `NodeHttpClient.layerUndici`.
 */
export const makeClient = (
  baseUrl: string | URL,
  options: ClientOptions = {}
) =>
  HttpApiClient.make(Api, {
    baseUrl,
    transformClient: (client) => {
      const bearer = options.bearer === undefined
        ? undefined
        : Redacted.isRedacted(options.bearer)
        ? Redacted.value(options.bearer)
        : options.bearer
      const authenticated = client.pipe(HttpClient.mapRequest((request) => {
        let next = request
        if (bearer !== undefined) next = HttpClientRequest.bearerToken(next, bearer)
        if (options.cookie !== undefined) {
          next = HttpClientRequest.setHeader(next, "cookie", options.cookie)
          if (options.origin !== undefined) next = HttpClientRequest.setHeader(next, "origin", options.origin)
        }
        return next
      }))
      return options.transformClient === undefined ? authenticated : options.transformClient(authenticated)
    }
  })

/** One event of `GET /environments/{envId}/events`: its cursor (for `lastEventId`) and the run. */
export interface RunEventMessage {
  readonly cursor: string
  readonly run: Run
}

const decodeRunJson = Schema.decode(Schema.parseJson(Run))

/**
 * Follows an environment's run transitions (the SSE stream of
 * `GET /environments/{envId}/events`) as a `Stream` of runs with their
 * cursors. `lastEventId` resumes after that event. The stream ends when the
 * server closes the connection (it drops a client that does not keep up):
 * follow again from the last cursor seen to continue without loss.
 * `baseUrl` as for `makeClient` (undefined: the `HttpClient` resolves the path).
 */
export const followRunEvents = (
  baseUrl: string | URL | undefined,
  environmentId: string,
  options: ClientOptions & { readonly lastEventId?: string | undefined } = {}
): Stream.Stream<RunEventMessage, HttpClientError.HttpClientError | ParseResult.ParseError, HttpClient.HttpClient> =>
  Stream.unwrapScoped(Effect.gen(function*() {
    const path = `/api/v1/environments/${encodeURIComponent(environmentId)}/events`
    let request = HttpClientRequest.get(baseUrl === undefined ? path : new URL(path, baseUrl).toString()).pipe(
      HttpClientRequest.setHeader("accept", "text/event-stream")
    )
    const bearer = Redacted.isRedacted(options.bearer) ? Redacted.value(options.bearer) : options.bearer
    if (bearer !== undefined) request = HttpClientRequest.bearerToken(request, bearer)
    if (options.cookie !== undefined) request = HttpClientRequest.setHeader(request, "cookie", options.cookie)
    if (options.lastEventId !== undefined) request = HttpClientRequest.setHeader(request, "last-event-id", options.lastEventId)
    const base = yield* HttpClient.HttpClient
    const client = (options.transformClient === undefined ? base : options.transformClient(base)).pipe(HttpClient.filterStatusOk)
    const response = yield* client.execute(request)
    return response.stream.pipe(
      Stream.decodeText(),
      Stream.pipeThroughChannel(Sse.makeChannel()),
      Stream.filter((event) => event.event === "run" && event.id !== undefined),
      Stream.mapEffect((event) => Effect.map(decodeRunJson(event.data), (run): RunEventMessage => ({ cursor: event.id!, run })))
    )
  }))
