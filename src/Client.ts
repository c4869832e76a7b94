import { HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { Api } from "./Api.js"

/**
 * The typed client of the whole HTTP API, derived from the same `HttpApi`
 * definition the server implements: every endpoint is a method of its group
 * (`client.triggers.create(...)`, `client.workerProtocol.poll(...)`), and each
 * declared error comes back as its class (`Unauthorized`, `NotFound`, ...).
 */
export type PipelineClient = Effect.Effect.Success<ReturnType<typeof makeClient>>

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
