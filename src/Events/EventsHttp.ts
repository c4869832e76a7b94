import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { Api } from "../Contract/Api.js"
import { answerAccess } from "../Tenancy/TenancyWireErrors.js"
import { Run } from "../Contract/Domain/Run.js"
import { type FeedEvent, RunFeed } from "../Scheduler/RunFeed.js"
import { Policy } from "../Tenancy/Policy.js"

const encodeRun = Schema.encodeSync(Run)

/** One SSE event; the JSON is on one line, as `data:` requires. */
export const sseEvent = (event: FeedEvent): string =>
  `event: run\nid: ${event.cursor}\ndata: ${JSON.stringify(encodeRun(event.run))}\n\n`

/** How often a comment line keeps idle connections (and the proxies on their way) open. */
export const keepAliveMillis = 15_000

export const EventsLive = HttpApiBuilder.group(Api, "events", (handlers) =>
  Effect.gen(function*() {
    const feed = yield* RunFeed
    const policy = yield* Policy
    return handlers.handleRaw("environmentEvents", ({ headers, path, urlParams }) =>
      Effect.gen(function*() {
        yield* answerAccess(policy.requireRole(path.envId, "viewer"))
        const environmentId = path.envId.toLowerCase()
        const keepAlive = Stream.tick(keepAliveMillis).pipe(Stream.drop(1), Stream.as(": keep-alive\n\n"))
        // Subscribed before the first line goes out: whatever happens after a
        // client has seen ": connected" reaches it.
        const body = Stream.unwrapScoped(Effect.map(
          feed.subscribe(environmentId, { after: headers["last-event-id"]?.trim() }),
          (events) =>
            Stream.make(": connected\n\n").pipe(
              Stream.concat(Stream.merge(
                events.pipe(
                  Stream.filter((event) => urlParams.tag === undefined || event.run.tags.includes(urlParams.tag)),
                  Stream.map(sseEvent),
                  // A dropped subscriber's connection closes; its EventSource reconnects with its last id.
                  Stream.catchTag("SlowSubscriber", () => Stream.empty)
                ),
                keepAlive,
                { haltStrategy: "left" }
              ))
            )
        )).pipe(Stream.encodeText)
        return HttpServerResponse.stream(body, {
          contentType: "text/event-stream",
          headers: { "cache-control": "no-cache", "x-accel-buffering": "no" }
        })
      }).pipe(Effect.withSpan("Events.environmentEvents")))
  }))
