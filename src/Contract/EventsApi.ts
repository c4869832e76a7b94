import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { Authentication } from "./Security.js"
import { Forbidden, NotFound } from "./Domain/ApiErrors.js"
import { pathId } from "./Domain/Uuids.js"
import { Tag } from "./Domain/Tags.js"

/** The SSE body, as the OpenAPI document shows it. */
export const EventStream = Schema.String.pipe(
  HttpApiSchema.withEncoding({ kind: "Text", contentType: "text/event-stream" })
).annotations({
  description: "`event: run`, `id:` a cursor for `Last-Event-ID`, `data:` the run object (JSON, one line); " +
    "a comment line (`: keep-alive`) every 15 s."
})

export class EventsApi extends HttpApiGroup.make("events")
  .add(
    HttpApiEndpoint.get("environmentEvents", "/environments/:envId/events")
      .annotate(OpenApi.Summary, "Follow an environment's run transitions (Server-Sent Events)")
      .annotate(OpenApi.Description,
        "viewer or higher. One event per run transition in the environment, on any instance: `event: run`, " +
          "`id:` a resumable cursor, `data:` the run object as it is when the event is sent. Send `Last-Event-ID` " +
          "(browsers' `EventSource` does on reconnecting) to resume after that event without loss; the history is " +
          "stored with the runs. `?tag=` sends only the transitions of runs carrying that tag. A comment line every 15 s keeps proxies open. A client that does not keep up is " +
          "disconnected (it reconnects and resumes). Works with `curl -N` and `EventSource` (cookie).")
      .setPath(Schema.Struct({ envId: pathId("environment") }))
      .setHeaders(Schema.Struct({ "last-event-id": Schema.optional(Schema.String) }))
      .setUrlParams(Schema.Struct({ tag: Schema.optional(Tag) }))
      .addSuccess(EventStream)
      .addError(NotFound.wire)
      .addError(Forbidden.wire)
  )
  .middleware(Authentication)
{}
