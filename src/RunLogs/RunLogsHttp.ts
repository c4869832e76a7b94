import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { Api } from "../Contract/Api.js"
import { CurrentWorker } from "../Contract/Security.js"
import { NotFound } from "../Contract/Domain/ApiErrors.js"
import { answerAccess } from "../Tenancy/TenancyWireErrors.js"
import { Policy } from "../Tenancy/Policy.js"
import { type LogLine, LogPage } from "../Contract/RunLogsApi.js"
import { isoOf } from "./LineTimes.js"
import { type FollowEvent, RunLogs } from "./RunLogs.js"

const encodePage = Schema.encodeSync(LogPage)

/**
 * A line as `JSON.stringify(Schema.encodeSync(LogLine)(line))` writes it,
 * by hand: a follower gets every line of a chatty run, and through the
 * schema a line took about twice as long to write out
 * (test/runlogs/sse.test.ts holds the two equal).
 */
export const lineJson = (line: LogLine): string =>
  `{"seq":${line.seq},"stream":"${line.stream}","text":${JSON.stringify(line.text)},"at":"${isoOf(line.at)}"}`

/** One SSE event; the JSON is on one line, as `data:` requires. */
export const sseEvent = (event: FollowEvent): string =>
  event._tag === "Line"
    ? `event: line\nid: ${event.line.seq}\ndata: ${lineJson(event.line)}\n\n`
    : `event: end\ndata: ${JSON.stringify({ status: event.status })}\n\n`

/** How often a comment line keeps an idle follow (and the proxies on its way) open. */
export const keepAliveMillis = 15_000

/** A `Last-Event-ID` is the seq of the last line the client has; anything else is not one of ours. */
const lastEventId = (header: string | undefined): number | undefined => {
  const text = header?.trim()
  return text !== undefined && /^\d{1,15}$/.test(text) ? Number(text) : undefined
}

export const RunLogsWorkerLive = HttpApiBuilder.group(Api, "runLogsWorker", (handlers) =>
  Effect.gen(function*() {
    const logs = yield* RunLogs
    return handlers.handle("appendLogs", ({ path, payload }) =>
      Effect.gen(function*() {
        const worker = yield* CurrentWorker
        // Another worker's id: not found, as every worker path answers it.
        if (worker.workerId !== path.id.toLowerCase()) return yield* Effect.fail(NotFound.of("worker"))
        return yield* logs.append(worker.workerId, path.runId.toLowerCase(), payload)
      }))
  }))

export const RunLogsLive = HttpApiBuilder.group(Api, "runLogs", (handlers) =>
  Effect.gen(function*() {
    const logs = yield* RunLogs
    const policy = yield* Policy
    return handlers.handleRaw("runLogs", ({ headers, path, urlParams }) =>
      Effect.gen(function*() {
        const runId = path.id.toLowerCase()
        // A run of an environment the caller cannot see is not found, as one that does not exist.
        const run = yield* logs.findRun(runId)
        if (run === undefined) return yield* Effect.fail(NotFound.of("run"))
        yield* answerAccess(policy.requireRole(run.environmentId, "viewer", "run"))
        const follow = urlParams.follow === "1" || urlParams.follow === "true" ||
          (urlParams.follow === undefined && (headers.accept ?? "").includes("text/event-stream"))
        if (!follow) {
          const page = yield* logs.page(runId, urlParams.after ?? 0, urlParams.limit ?? 1000)
          return HttpServerResponse.unsafeJson(encodePage(page))
        }
        const after = lastEventId(headers["last-event-id"]) ?? urlParams.after ?? 0
        const keepAlive = Stream.tick(keepAliveMillis).pipe(Stream.drop(1), Stream.as(": keep-alive\n\n"))
        const body = Stream.make(": connected\n\n").pipe(
          Stream.concat(Stream.merge(
            // Each chunk of lines read together goes out as one write.
            logs.follow(runId, after).pipe(Stream.mapChunks((events) => Chunk.of(Chunk.join(Chunk.map(events, sseEvent), "")))),
            keepAlive,
            { haltStrategy: "left" }
          )),
          Stream.encodeText
        )
        return HttpServerResponse.stream(body, {
          contentType: "text/event-stream",
          headers: { "cache-control": "no-cache", "x-accel-buffering": "no" }
        })
      }).pipe(Effect.withSpan("RunLogs.read")))
  }))
