import * as HttpClientError from "@effect/platform/HttpClientError"
import * as Cause from "effect/Cause"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as ParseResult from "effect/ParseResult"
import * as Predicate from "effect/Predicate"
import * as Schedule from "effect/Schedule"
import { InternalError, ServiceUnavailable } from "../Contract/Domain/ApiErrors.js"

/**
 * A call that died instead of failing: the client broke, or an older service
 * sent a defect over the worker channel (which fails every call in flight on
 * that connection). Kept as a failure so it is retried like any other: the
 * worker never stops because the service had a bad moment.
 */
export class CallDefect extends Data.TaggedError("CallDefect")<{ readonly defect: unknown }> {
  override get message(): string {
    return `the call died: ${describe(this.defect)}`
  }
}

/** `effect` with its defects as `CallDefect` failures (interruption stays interruption). */
export const defectsAsFailures = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | CallDefect, R> =>
  Effect.catchAllDefect(effect, (defect) => Effect.fail(new CallDefect({ defect })))

/**
 * Errors worth retrying: the service could not answer now (network failure,
 * timeout, 5xx, 408, 429) or answered something unreadable (a proxy's HTML
 * error page). Everything else is an answer, and retrying would repeat it.
 */
export const isTransient = (error: unknown): boolean => {
  if (error instanceof InternalError || error instanceof ServiceUnavailable || error instanceof CallDefect) return true
  if (Cause.isTimeoutException(error)) return true
  if (ParseResult.isParseError(error)) return true
  // The worker channel dropped (or is reconnecting): the call goes out again on the next connection.
  if (Predicate.isTagged(error, "RpcClientError")) return true
  if (HttpClientError.isHttpClientError(error)) {
    if (error._tag === "RequestError") return true
    const status = error.response.status
    return status >= 500 || status === 408 || status === 429
  }
  return false
}

const causeChain = (error: unknown): string => {
  const parts: Array<string> = []
  let current: unknown = error
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (current.message && !parts.includes(current.message)) parts.push(current.message)
    current = current.cause
  }
  return parts.join(": ")
}

/** A one-line description for logs and error messages; never includes a token. */
export const describe = (error: unknown): string => {
  if (HttpClientError.isHttpClientError(error)) {
    if (error._tag === "ResponseError") return `HTTP ${error.response.status} from ${error.request.method} ${error.request.url}`
    // `message` names the method and URL; the cause says why (ECONNREFUSED, ENOTFOUND, ...).
    const reason = causeChain(error.cause)
    return reason.length > 0 ? `${error.message}: ${reason}` : error.message
  }
  if (Cause.isTimeoutException(error)) return "the request timed out"
  if (ParseResult.isParseError(error)) return "unexpected response from the service"
  if (Predicate.hasProperty(error, "error") && typeof error.error === "string") return error.error
  if (error instanceof Error) return causeChain(error)
  return String(error)
}

/**
 * Exponential backoff from 250 ms, doubling, jittered, capped at 2 s between
 * attempts, forever: a worker outlives service restarts and database blips,
 * and takes runs again within seconds of the service answering (a longer cap
 * kept workers away for most of it after the service was back).
 */
export const defaultRetrySchedule: Schedule.Schedule<unknown, unknown> = Schedule.exponential("250 millis", 2).pipe(
  Schedule.jittered,
  Schedule.union(Schedule.spaced("2 seconds")),
  Schedule.asVoid
)

/**
 * Retries `effect` while it fails transiently (a defect counts as transient:
 * `CallDefect`), logging each failure (a reconnecting worker says so), with
 * `schedule` deciding the delays and when to give up.
 */
export const retryTransient = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  what: string,
  schedule: Schedule.Schedule<unknown, unknown>
): Effect.Effect<A, E | CallDefect, R> =>
  defectsAsFailures(effect).pipe(
    Effect.tapError((error) =>
      isTransient(error)
        ? Effect.logWarning(`${what} failed, retrying with backoff`).pipe(Effect.annotateLogs({ reason: describe(error) }))
        : Effect.void
    ),
    Effect.retry({ schedule, while: isTransient })
  )
