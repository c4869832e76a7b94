import { SqlError } from "@effect/sql/SqlError"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { InternalError, ServiceUnavailable } from "../Contract/Domain/ApiErrors.js"
import { isUnavailable } from "../Http/ErrorMiddleware.js"

/**
 * What a channel call fails with besides its own declared errors, as REST
 * answers it: the database unreachable is a `ServiceUnavailable` (503, retry
 * later), anything else unexpected an `InternalError` (500) whose cause is
 * only logged here. A defect never goes over the wire: @effect/rpc sends a
 * handler's defect to the client as a connection-wide `Defect` message (every
 * call in flight dies with it), carrying the service's own error text.
 */
export type ChannelFailure = ServiceUnavailable | InternalError

const sqlErrorOf = (cause: Cause.Cause<unknown>): SqlError | undefined => {
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure) && failure.value instanceof SqlError) return failure.value
  const defect = Cause.dieOption(cause)
  if (Option.isSome(defect) && defect.value instanceof SqlError) return defect.value
  return undefined
}

/** The typed failure for a cause that is not one of the call's declared errors; logged with its cause. */
export const refusalOf = (cause: Cause.Cause<unknown>): Effect.Effect<ChannelFailure> => {
  const sql = sqlErrorOf(cause)
  if (sql !== undefined && isUnavailable(sql)) {
    return Effect.as(
      Effect.logWarning("database unavailable (worker channel)").pipe(Effect.annotateLogs({ error: sql.message })),
      // A fresh error each time: a shared instance failed under a span is wrapped in a proxy on every pass.
      new ServiceUnavailable({ error: ServiceUnavailable.default.error })
    )
  }
  return Effect.as(Effect.logError(sql !== undefined ? "database error (worker channel)" : "unhandled failure (worker channel)", cause), new InternalError({ error: InternalError.default.error }))
}

/**
 * A handler's effect with every failure it does not declare (`keep`, or a `ChannelFailure` already) and every
 * defect turned into a `ChannelFailure`. Interruption (the connection closing)
 * stays interruption.
 */
export const guard = <A, E, R, K extends E = never>(
  effect: Effect.Effect<A, E, R>,
  keep: (error: E) => error is K = (_): _ is K => false
): Effect.Effect<A, K | ChannelFailure, R> =>
  Effect.catchAllCause(effect, (cause): Effect.Effect<never, K | ChannelFailure> => {
    if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
    const failure = Cause.failureOption(cause)
    if (Option.isSome(failure) && keep(failure.value)) return Effect.fail(failure.value)
    if (Option.isSome(failure) && isChannelFailure(failure.value)) return Effect.fail(failure.value)
    return Effect.flatMap(refusalOf(cause), Effect.fail)
  })

const isChannelFailure = (error: unknown): error is ChannelFailure => error instanceof ServiceUnavailable || error instanceof InternalError

/** `guard` for a stream: it ends with the typed failure. */
export const guardStream = <A, E, R>(stream: Stream.Stream<A, E, R>): Stream.Stream<A, ChannelFailure, R> =>
  Stream.catchAllCause(stream, (cause) =>
    Cause.isInterruptedOnly(cause) ? Stream.failCause(cause as Cause.Cause<never>) : Stream.fromEffect(Effect.flatMap(refusalOf(cause), Effect.fail)))
