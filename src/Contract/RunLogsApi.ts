import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as JSONSchema from "effect/JSONSchema"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { Authentication, WorkerAuthentication } from "./Security.js"
import { Conflict, Forbidden, NotFound } from "./Domain/ApiErrors.js"
import { pathId } from "./Domain/Uuids.js"
import { IntParam, isIsoTimestamp, IsoTimestamp, Payload, Timestamp } from "./Domain/Schemas.js"

/**
 * Run logs, contract side: the lines a worker streams while a run executes
 * (`POST /workers/{id}/runs/{runId}/logs`, or the worker channel's `Logs`)
 * and the reads of them (`GET /runs/{id}/logs`, paged or followed as SSE).
 */

/** Lines one call carries at most. */
export const maxLinesPerCall = 1000

/** Characters of one line at most (the pipeline-worker agent cuts a line that never ends at 64 KiB). */
export const maxLineChars = 64 * 1024

export const LogStream = Schema.Literal("stdout", "stderr").annotations({
  message: () => "stream must be stdout or stderr"
})
export type LogStream = typeof LogStream.Type

/** One line as a worker sends it; `at` defaults to when the service receives it. */
export const LogLineInput = Schema.Struct({
  stream: LogStream,
  text: Schema.String.pipe(Schema.maxLength(maxLineChars)).annotations({
    message: () => `text must be a string of at most ${maxLineChars} characters`
  }),
  at: Schema.optional(IsoTimestamp)
})
export type LogLineInput = typeof LogLineInput.Type

/** The worker's numbering of a run's lines: the first line of a call is `sequence`, the next `sequence + 1`, and so on. */
export const LogSequence = Schema.Int.pipe(Schema.between(1, Number.MAX_SAFE_INTEGER)).annotations({
  message: () => "sequence must be a whole number ≥ 1",
  description: "The worker's own number of the first line of this call (the run's first line is 1, and each line " +
    "one more). Lines at or below the highest number already stored for the run are a resend and are not stored " +
    "again, so a batch resent after a lost answer is stored once. Without it, every call's lines are stored."
})

/** A call's lines as documented and checked field by field, with a 400 that says which line is wrong and why. */
const CheckedLines = Schema.Array(LogLineInput).pipe(Schema.minItems(1), Schema.maxItems(maxLinesPerCall)).annotations({
  message: () => `lines must be 1 to ${maxLinesPerCall} lines, each {stream, text, at?}`
})

// The last `at` decoded and its Date: the lines of one write share their time
// (a chatty command's mostly share their millisecond), so most lines parse nothing.
let lastAt: string | undefined
let lastAtDate: Date | undefined

/**
 * Well-formed lines decoded by one loop, or undefined. What it accepts from
 * JSON it decodes exactly as `CheckedLines` would (unknown keys left out,
 * `at` a `Date`); what it does not, `CheckedLines` decodes or refuses.
 */
export const decodeWellFormedLines = (input: unknown): ReadonlyArray<LogLineInput> | undefined => {
  if (!Array.isArray(input) || input.length < 1 || input.length > maxLinesPerCall) return undefined
  const lines = new Array<LogLineInput>(input.length)
  for (let i = 0; i < input.length; i++) {
    const line: unknown = input[i]
    if (typeof line !== "object" || line === null) return undefined
    const { at, stream, text } = line as Record<string, unknown>
    if ((stream !== "stdout" && stream !== "stderr") || typeof text !== "string" || text.length > maxLineChars) return undefined
    if (at === undefined) {
      lines[i] = { stream, text }
      continue
    }
    // A `Date` is a line already decoded: the declaration below is its own type side (`Struct.make` checks with it).
    if (at instanceof Date && !Number.isNaN(at.getTime())) lines[i] = { stream, text, at }
    else if (typeof at === "string" && at === lastAt) lines[i] = { stream, text, at: lastAtDate! }
    else if (typeof at === "string" && isIsoTimestamp(at)) {
      lastAt = at
      lastAtDate = new Date(at)
      lines[i] = { stream, text, at: lastAtDate }
    } else return undefined
  }
  return lines
}

const decodeChecked = ParseResult.decodeUnknown(CheckedLines)
const encodeChecked = ParseResult.encodeUnknown(CheckedLines)

/**
 * `CheckedLines` with a fast path: every line of a chatty run goes through
 * here, and field by field the schema took ten times as long as parsing the
 * JSON (most of the service's own work per line). Documented (OpenAPI) as
 * `CheckedLines`.
 */
const Lines = Schema.declare(
  [],
  {
    decode: () => (input, options) => {
      const lines = decodeWellFormedLines(input)
      return lines !== undefined ? ParseResult.succeed(lines) : decodeChecked(input, options)
    },
    encode: () => (input, options) => encodeChecked(input, options)
  },
  { jsonSchema: (({ $schema: _, ...schema }) => schema)(JSONSchema.make(CheckedLines)) }
)

export const AppendLogsPayload = Payload({
  lines: Lines,
  sequence: Schema.optional(LogSequence)
})
export type AppendLogsPayload = typeof AppendLogsPayload.Type

export const AppendLogsResult = Schema.Struct({
  stored: Schema.Int.annotations({ description: "Lines stored by this call (in full or cut at the log's limit)." }),
  duplicates: Schema.Int.annotations({ description: "Lines left out as a resend (see `sequence`)." }),
  dropped: Schema.Int.annotations({ description: "Lines not stored, or stored cut, because the run's log reached RUN_LOG_MAX_BYTES." })
}).annotations({ identifier: "AppendLogsResult" })
export type AppendLogsResult = typeof AppendLogsResult.Type

/** One stored line. */
export const LogLine = Schema.Struct({
  seq: Schema.Int.annotations({ description: "The line's number in the run's log: 1, 2, 3… with no gap." }),
  stream: LogStream,
  text: Schema.String,
  at: Timestamp
}).annotations({ identifier: "LogLine" })
export type LogLine = typeof LogLine.Type

export const LogPage = Schema.Struct({
  items: Schema.Array(LogLine),
  nextAfter: Schema.NullOr(Schema.Int).annotations({
    description: "Pass as `after` for the lines that follow. Null once the run has ended and every line was read: nothing more will come."
  })
}).annotations({ identifier: "LogPage" })
export type LogPage = typeof LogPage.Type

export const LogParams = Schema.Struct({
  after: Schema.optional(IntParam("after", {
    min: 0,
    max: Number.MAX_SAFE_INTEGER,
    default: 0,
    description: "Lines after this seq (0: from the first)."
  })),
  limit: Schema.optional(IntParam("limit", { min: 1, max: 5000, default: 1000, description: "Lines per page." })),
  follow: Schema.optional(
    Schema.Literal("1", "true", "0", "false").annotations({
      message: () => "follow must be 1, true, 0 or false",
      description: "1: stream the lines as Server-Sent Events (as `Accept: text/event-stream` does)."
    })
  )
}).annotations({ parseOptions: { errors: "all" } })

/** The worker side: append lines to a run it holds. */
export class RunLogsWorkerApi extends HttpApiGroup.make("runLogsWorker")
  .add(
    HttpApiEndpoint.post("appendLogs", "/workers/:id/runs/:runId/logs")
      .annotate(OpenApi.Summary, "Append log lines to a run")
      .setPath(Schema.Struct({ id: pathId("worker"), runId: pathId("run") }))
      .setPayload(AppendLogsPayload)
      .addSuccess(AppendLogsResult)
      .addError(NotFound.wire)
      .addError(Conflict.wire)
      .annotate(OpenApi.Description,
        "Up to 1,000 lines `{stream: \"stdout\"|\"stderr\", text, at?}` of a run this worker holds, while it is " +
          "claimed or running (else 409; another worker's run 404). Stored in order, numbered per run (`seq`), up to " +
          "RUN_LOG_MAX_BYTES of text per run: past it one marker line says how much was dropped, and the rest is only " +
          "counted. `sequence` makes a resend idempotent. A NUL character or a lone surrogate in `text` is stored as U+FFFD.")
  )
  .middleware(WorkerAuthentication)
{}

/** The reading side: page through or follow a run's log (viewer+, the run's visibility). */
export class RunLogsApi extends HttpApiGroup.make("runLogs")
  .add(
    HttpApiEndpoint.get("runLogs", "/runs/:id/logs")
      .annotate(OpenApi.Summary, "Read or follow a run's log")
      .setPath(Schema.Struct({ id: pathId("run") }))
      .setUrlParams(LogParams)
      .setHeaders(Schema.Struct({
        "last-event-id": Schema.optional(Schema.String),
        accept: Schema.optional(Schema.String)
      }))
      .addSuccess(LogPage)
      .addError(NotFound.wire)
      .addError(Forbidden.wire)
      .annotate(OpenApi.Description,
        "viewer or higher. `{items: [{seq, stream, text, at}], nextAfter}`: up to `limit` lines after `after`, in " +
          "order. With `follow=1` (or `Accept: text/event-stream`): the lines as Server-Sent Events from `after` (or " +
          "the `Last-Event-ID` header, which an EventSource sends on reconnecting), live as the worker sends them, on " +
          "any instance: `event: line`, `id:` the seq, `data:` the line (JSON, one line). Once the run has ended and every " +
          "line was sent: `event: end`, `data: {\"status\": <the run's status>}`, and the stream closes. A comment line every 15 s keeps proxies open.")
  )
  .middleware(Authentication)
{}
