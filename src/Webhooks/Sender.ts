import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as http from "node:http"
import * as https from "node:https"
import { Tuning } from "../Config/Tuning.js"
import { signatureHeader } from "./Signer.js"
import { UrlGuard } from "./UrlGuard.js"
import { hotSpan } from "../Config/Tracing.js"

/** One POST of a webhook body, as the delivery loop sees it. */
export interface OutboundRequest {
  readonly url: string
  readonly body: string
  /** `sha256=<hex>`, or null when the trigger has no secret (then no signature header is sent). */
  readonly signature: string | null
}

/**
 * The outcome of one attempt. `Retryable`: 5xx, 408, 429, network errors and
 * timeouts. `Permanent`: every other non-2xx answer (3xx included: redirects
 * are never followed) and URLs the SSRF guard refuses.
 */
export type AttemptResult =
  | { readonly _tag: "Delivered"; readonly statusCode: number; readonly responseBody: string }
  | {
    readonly _tag: "Retryable" | "Permanent"
    readonly statusCode: number | null
    readonly responseBody: string | null
    readonly error: string
  }

export type Send = (request: OutboundRequest) => Effect.Effect<AttemptResult>

/** Stored response bodies are cut to this many characters. */
export const responseBodyChars = 1024
/** At most this many bytes of a response are read (enough for 1024 characters of UTF-8). */
const responseBodyCapBytes = 4 * responseBodyChars

export const userAgent = "pipeline-trigger-service"

export const classify = (statusCode: number): AttemptResult["_tag"] => {
  if (statusCode >= 200 && statusCode < 300) return "Delivered"
  if (statusCode >= 500 || statusCode === 408 || statusCode === 429) return "Retryable"
  return "Permanent"
}

/**
 * Text Postgres can store: no NUL (text refuses it), no unpaired surrogate
 * left by the cut, at most 1024 characters.
 */
export const truncateBody = (text: string): string => {
  let out = text.replace(/\u0000/g, "\uFFFD").slice(0, responseBodyChars)
  if (/[\uD800-\uDBFF]$/.test(out)) out = out.slice(0, -1)
  return out
}

const blockedMessage = "webhook URL resolves to a non-public address"

export interface SenderOptions {
  /** One attempt (connect, send, read the capped response) must finish within this. */
  readonly attemptTimeout: Duration.DurationInput
}

/**
 * A sender over keep-alive `node:http`/`node:https` agents (several times the
 * throughput of `fetch` for small signed POSTs). The agents' `lookup` is the
 * SSRF guard, so the address actually connected to is checked on every new
 * socket; IP-literal hosts, which skip `lookup`, are checked before the request.
 */
export const make = (options: SenderOptions): Effect.Effect<Send, never, Scope.Scope | Tuning | UrlGuard> =>
  Effect.gen(function*() {
    const config = yield* Tuning
    const guard = yield* UrlGuard
    const timeout = Duration.decode(options.attemptTimeout)
    const agentOptions: http.AgentOptions = {
      keepAlive: true,
      // Bounded sockets: thousands of slow endpoints queue here instead of exhausting file descriptors.
      maxSockets: config.webhookConcurrency,
      maxFreeSockets: Math.min(config.webhookConcurrency, 256),
      scheduling: "lifo",
      // Idle sockets close before a typical server's 5 s keep-alive timeout, so
      // a reused socket is rarely one the server is closing at the same moment.
      timeout: 4_000,
      lookup: guard.lookup
    } as http.AgentOptions
    const httpAgent = yield* Effect.acquireRelease(
      Effect.sync(() => new http.Agent(agentOptions)),
      (agent) => Effect.sync(() => agent.destroy())
    )
    const httpsAgent = yield* Effect.acquireRelease(
      Effect.sync(() => new https.Agent(agentOptions)),
      (agent) => Effect.sync(() => agent.destroy())
    )

    const attempt = (request: OutboundRequest, url: URL): Effect.Effect<AttemptResult> =>
      Effect.async<AttemptResult>((resume) => {
        const body = Buffer.from(request.body, "utf8")
        const headers: Record<string, string | number> = {
          "content-type": "application/json",
          "content-length": body.length,
          "user-agent": userAgent
        }
        if (request.signature !== null) headers[signatureHeader] = request.signature
        const secure = url.protocol === "https:"
        const req = (secure ? https : http).request(url, {
          method: "POST",
          agent: secure ? httpsAgent : httpAgent,
          headers,
          lookup: guard.lookup
        })
        let done = false
        // The attempt's deadline is a timer on the request itself, not
        // `Effect.timeout`: that forks a fiber and races it on every attempt,
        // about a third of a millisecond each at hundreds of deliveries a second.
        const timer = setTimeout(() => {
          if (done) return
          finish({ _tag: "Retryable", statusCode: null, responseBody: null, error: `timed out after ${Duration.format(timeout)}` })
          req.destroy()
        }, Duration.toMillis(timeout))
        const finish = (result: AttemptResult) => {
          if (done) return
          done = true
          clearTimeout(timer)
          resume(Effect.succeed(result))
        }
        req.on("response", (res) => {
          const statusCode = res.statusCode ?? 0
          const chunks: Array<Buffer> = []
          let size = 0
          const complete = () => {
            const text = truncateBody(new TextDecoder("utf-8").decode(Buffer.concat(chunks)))
            const tag = classify(statusCode)
            finish(
              tag === "Delivered"
                ? { _tag: tag, statusCode, responseBody: text }
                : { _tag: tag, statusCode, responseBody: text, error: `HTTP ${statusCode}` }
            )
          }
          res.on("data", (chunk: Buffer) => {
            if (size >= responseBodyCapBytes) return
            chunks.push(chunk)
            size += chunk.length
            if (size >= responseBodyCapBytes) {
              // Enough to store: stop reading (the socket is not reused).
              complete()
              res.destroy()
            }
          })
          res.on("end", complete)
          // The status is known: a body cut short still decides the outcome.
          res.on("error", complete)
          res.on("aborted", complete)
        })
        req.on("error", (err: NodeJS.ErrnoException) => {
          if (err.code === "EBLOCKEDADDRESS") {
            finish({ _tag: "Permanent", statusCode: null, responseBody: null, error: blockedMessage })
          } else {
            finish({
              _tag: "Retryable",
              statusCode: null,
              responseBody: null,
              error: `network error: ${err.code ?? err.message}`
            })
          }
        })
        req.end(body)
        // Interruption (shutdown) tears the request down.
        return Effect.sync(() => {
          done = true
          clearTimeout(timer)
          req.destroy()
        })
      })

    const send: Send = (request) =>
      Effect.suspend(() => {
        let url: URL
        try {
          url = new URL(request.url)
        } catch {
          return Effect.succeed<AttemptResult>({
            _tag: "Permanent",
            statusCode: null,
            responseBody: null,
            error: "invalid webhook URL"
          })
        }
        if (url.protocol !== "http:" && url.protocol !== "https:") {
          return Effect.succeed<AttemptResult>({
            _tag: "Permanent",
            statusCode: null,
            responseBody: null,
            error: "invalid webhook URL"
          })
        }
        if (!guard.allowsLiteral(url)) {
          return Effect.succeed<AttemptResult>({ _tag: "Permanent", statusCode: null, responseBody: null, error: blockedMessage })
        }
        return attempt(request, url)
      }).pipe(hotSpan("Webhooks.send"))

    return send
  })
