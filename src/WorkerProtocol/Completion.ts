import type { CompletePayload } from "../Contract/WorkerProtocolApi.js"
import type { Completion } from "../Scheduler/Transitions.js"

/** A worker's report that a run ended, as the REST call and the channel carry it (the contract's `CompletePayload`). */
export type CompleteRequest = typeof CompletePayload.Type

export const shortMessageChars = 500
export const errorMessageBytes = 64 * 1024

// Postgres text cannot hold NUL; a worker's output may.
const clean = (text: string): string => text.includes("\u0000") ? text.replaceAll("\u0000", "") : text

/** The first `n` characters (code points, so a surrogate pair is never cut in half). */
export const firstChars = (text: string, n: number): string => {
  if (text.length <= n) return text
  return Array.from(text.slice(0, n * 2)).slice(0, n).join("")
}

/** At most `max` bytes of UTF-8, cut on a character boundary. */
export const firstBytes = (text: string, max: number): string => {
  const bytes = Buffer.from(text, "utf8")
  if (bytes.length <= max) return text
  let end = max
  // Back up over continuation bytes (10xxxxxx) to the start of a character.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--
  return bytes.subarray(0, end).toString("utf8")
}

// Postgres jsonb holds neither NUL nor unpaired surrogates in its strings: both become U+FFFD.
const unstorable = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g
const storableJson = (value: unknown): string =>
  JSON.stringify(value, (_key, v) => typeof v === "string" ? v.replace(unstorable, "\uFFFD") : v)

/** What the run records of a report: its output cut to the stored sizes, and a failure's fault class. */
export const completion = (request: CompleteRequest): Completion => {
  const failed = request.status === "failed"
  return {
    status: request.status,
    shortMessage: request.stdout === undefined ? null : firstChars(clean(request.stdout), shortMessageChars),
    errorMessage: failed && request.stderr !== undefined ? firstBytes(clean(request.stderr), errorMessageBytes) : null,
    costUsd: request.costUsd ?? null,
    faultClass: failed ? request.faultClass ?? "client" : "none",
    output: request.output === undefined ? null : storableJson(request.output),
    retryable: request.retryable ?? true
  }
}
