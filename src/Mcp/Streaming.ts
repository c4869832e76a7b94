import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import * as Take from "effect/Take"
import { keepAliveMillis } from "../Events/EventsHttp.js"
import type * as JsonRpc from "../Contract/JsonRpc.js"
import { type ProgressUpdate, ToolProgress } from "./Progress.js"
import { waitingTools } from "./Tools.js"

/**
 * "JSON answers, SSE where a tool waits" (Streamable HTTP, revisions
 * 2025-06-18 and 2025-11-25): a `tools/call` of a tool that may wait, from a
 * client whose Accept lists `text/event-stream`, is answered as an SSE stream
 * that carries the JSON-RPC response as one `event: message` and then ends.
 * Before it, while the tool waits: `notifications/progress` when the request
 * carried `_meta.progressToken` (a client can then keep its own request
 * timeout from firing during a long wait), and a comment line every 15 s for
 * proxies. Events carry no `id`: the server keeps no sessions and offers no
 * GET stream to resume on, and an SSE client only tries to resume a POST
 * stream that gave it an event id.
 */

/** Whether this request is answered as SSE (see above). */
export const streams = (accept: string | undefined, request: { readonly method: string; readonly params: Record<string, unknown> }) =>
  accept !== undefined && /(^|,)\s*text\/event-stream\s*(;|,|$)/i.test(accept) &&
  request.method === "tools/call" && typeof request.params.name === "string" && waitingTools.has(request.params.name)

const progressTokenOf = (params: Record<string, unknown>): string | number | undefined => {
  const meta = params._meta
  if (typeof meta !== "object" || meta === null) return undefined
  const token = (meta as Record<string, unknown>).progressToken
  return typeof token === "string" || (typeof token === "number" && Number.isFinite(token)) ? token : undefined
}

/** One SSE event carrying one JSON-RPC message (JSON has no raw newlines, so one `data:` line). */
export const messageEvent = (message: unknown): string => `event: message\ndata: ${JSON.stringify(message)}\n\n`

// An unchanged state is reported again at most this often: the notifications then
// double as proof that the wait is alive.
const repeatMillis = 5_000

/**
 * A `ToolProgress` that turns reports into `notifications/progress` for
 * `token`: on every change of the message, else every 5 s. `progress` is the
 * seconds waited so far (it must grow with each notification), `total` the
 * longest wait.
 */
const progressTo = (token: string | number, offer: (event: string) => Effect.Effect<void>) =>
  Effect.map(Clock.currentTimeMillis, (started) => {
    let last: { readonly message: string; readonly at: number; readonly progress: number } | undefined
    return {
      report: (update: ProgressUpdate) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => {
          const progress = (now - started) / 1000
          if (last !== undefined && (progress <= last.progress || (update.message === last.message && now - last.at < repeatMillis))) {
            return Effect.void
          }
          last = { message: update.message, at: now, progress }
          return offer(messageEvent({
            jsonrpc: "2.0",
            method: "notifications/progress",
            params: {
              progressToken: token,
              progress,
              ...(update.totalSeconds === undefined ? {} : { total: update.totalSeconds }),
              message: update.message
            }
          }))
        })
    }
  })

/**
 * The SSE answer to `request`: `answer` runs once the stream is read (with a
 * `ToolProgress` when the client asked for progress), its response is the
 * last event, and the stream ends with it. The client going away closes the
 * stream's scope, which interrupts the wait.
 */
export const sseAnswer = (
  request: { readonly params: Record<string, unknown> },
  answer: Effect.Effect<JsonRpc.Response>
): HttpServerResponse.HttpServerResponse => {
  const token = progressTokenOf(request.params)
  const body = Stream.unwrapScoped(Effect.gen(function*() {
    // One queue for the notifications and the response, so nothing can overtake the response.
    const events = yield* Effect.acquireRelease(Queue.unbounded<Take.Take<string>>(), Queue.shutdown)
    const answered = token === undefined
      ? answer
      : Effect.flatMap(progressTo(token, (event) => Effect.asVoid(Queue.offer(events, Take.of(event)))), (progress) =>
        Effect.provideService(answer, ToolProgress, progress))
    yield* answered.pipe(
      Effect.flatMap((response) => Queue.offerAll(events, [Take.of(messageEvent(response)), Take.end])),
      Effect.forkScoped
    )
    const keepAlive = Stream.tick(keepAliveMillis).pipe(Stream.drop(1), Stream.as(": keep-alive\n\n"))
    // The stream ends with the response (haltStrategy "left").
    return Stream.merge(Stream.flattenTake(Stream.fromQueue(events)), keepAlive, { haltStrategy: "left" })
  })).pipe(Stream.encodeText)
  return HttpServerResponse.stream(body, {
    contentType: "text/event-stream",
    headers: { "cache-control": "no-cache", "x-accel-buffering": "no" }
  })
}
