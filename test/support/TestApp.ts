import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as HttpServer from "@effect/platform/HttpServer"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { layerHttp } from "../../src/App.js"
import { testConfig as configWith, type TestSettings } from "./TestConfig.js"
import * as NodeServer from "../../src/Http/NodeServer.js"
import * as TestDatabase from "./TestDatabase.js"

/** The Origin every test client sends on cookie calls (it is the configured PUBLIC_URL). */
export const origin = "http://localhost:3000"

/**
 * `NodeHttpServer.layerTest` on the service's own Node server (its
 * keep-alive and client-error handling): a random port and a client bound to it.
 */
const testServer = () => {
  const server = NodeServer.make()
  // Node's default: an idle keep-alive connection (a test's fetch) must not hold the
  // server's shutdown at the end of a test file for the service's 65 s.
  server.keepAliveTimeout = 5_000
  server.headersTimeout = 6_000
  return server
}

const serverAndClient = HttpServer.layerTestClient.pipe(
  Layer.provide(NodeHttpClient.layerWithoutAgent),
  Layer.provide(NodeHttpClient.makeAgentLayer({ keepAlive: false })),
  Layer.provideMerge(NodeHttpServer.layer(testServer, { port: 0 }))
)

/**
 * The whole HTTP application on a real server (random port) and a real
 * database: the same layers `main.ts` runs, nothing mocked.
 */
export const layer = (config: TestSettings = {}) =>
  layerHttp.pipe(
    Layer.provideMerge(serverAndClient),
    Layer.provideMerge(TestDatabase.layer),
    Layer.provideMerge(configWith({ publicUrl: origin, ...config }))
  )

export interface Response {
  readonly status: number
  readonly body: any
  readonly headers: Readonly<Record<string, string>>
}

export interface RequestOptions {
  readonly body?: unknown
  readonly rawBody?: string
  /** The content type of `rawBody` (default application/json). */
  readonly contentType?: string
  readonly cookie?: string | undefined
  readonly bearer?: string | undefined
  readonly headers?: Record<string, string>
  /** Send no Origin header (by default cookie calls send the allowed one). */
  readonly noOrigin?: boolean
}

/** One HTTP call through the real server; answers status, parsed JSON body and headers. */
export const call = (method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE" | "OPTIONS", path: string, options: RequestOptions = {}) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    let request = HttpClientRequest.make(method)(path)
    if (options.cookie !== undefined) request = HttpClientRequest.setHeader(request, "cookie", options.cookie)
    if (options.bearer !== undefined) request = HttpClientRequest.bearerToken(request, options.bearer)
    if (!options.noOrigin && options.cookie !== undefined) request = HttpClientRequest.setHeader(request, "origin", origin)
    for (const [k, v] of Object.entries(options.headers ?? {})) request = HttpClientRequest.setHeader(request, k, v)
    if (options.rawBody !== undefined) {
      request = HttpClientRequest.bodyText(request, options.rawBody, options.contentType ?? "application/json")
    } else if (options.body !== undefined) {
      request = yield* HttpClientRequest.bodyJson(request, options.body)
    }
    const response = yield* client.execute(request)
    const text = yield* response.text
    let body: any = text
    try {
      body = text.length > 0 ? JSON.parse(text) : undefined
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, body, headers: response.headers as Record<string, string> } satisfies Response
  }).pipe(Effect.scoped, Effect.orDie)

/** `auth_token=...` from a response's Set-Cookie, ready to send back. */
export const cookieOf = (response: Response): string => {
  const raw = response.headers["set-cookie"] ?? ""
  return raw.split(";")[0] ?? ""
}

let counter = 0
/** Registers a fresh user and answers its id, email and cookie. */
export const registerUser = (prefix = "user") =>
  Effect.gen(function*() {
    const email = `${prefix}-${Date.now()}-${counter++}@example.com`
    const res = yield* call("POST", "/api/v1/auth/register", { body: { email, password: "correct horse battery" }, headers: { origin } })
    if (res.status !== 201) return yield* Effect.dieMessage(`register failed: ${res.status} ${JSON.stringify(res.body)}`)
    return { id: res.body.id as string, email, cookie: cookieOf(res) }
  })

export { HttpClientResponse }
