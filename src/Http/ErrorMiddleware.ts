import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiError from "@effect/platform/HttpApiError"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { SqlError } from "@effect/sql/SqlError"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import {
  BadRequest,
  InternalError,
  NotFound,
  PayloadTooLarge,
  ServiceUnavailable,
  ValidationError,
  wireByTag
} from "../Contract/Domain/ApiErrors.js"
import { notFoundMessage } from "../Contract/Domain/Uuids.js"
import { wordIssues } from "../Contract/Domain/IssueWording.js"

/**
 * Turns the builder's decode errors into our `{error, details}` 400 and every
 * failure the API does not declare (unknown route, malformed JSON, oversized
 * body, defects) into the contract's `{error}` bodies. It runs inside the API's
 * error encoding, so the replacements are encoded like any declared error.
 */
export const toValidationError = (error: HttpApiError.HttpApiDecodeError): ValidationError => {
  const { fieldErrors, formErrors } = wordIssues(error.issues)
  return ValidationError.fields_(fieldErrors, formErrors)
}

const connectionCodes = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "57P01", "57P02", "57P03", "08000", "08003", "08006", "08001", "08004"])

/** True when a SQL failure means "the database is unreachable" rather than a bug. */
export const isUnavailable = (error: SqlError): boolean => {
  let cause: any = error.cause
  for (let i = 0; i < 4 && cause; i++) {
    if (connectionCodes.has(cause.code)) return true
    const message = String(cause.message ?? "")
    if (/Connection terminated|connect ECONNREFUSED|Connection timed out|timeout exceeded when trying to connect|Client has encountered a connection error|terminating connection/i.test(message)) {
      return true
    }
    cause = cause.cause
  }
  return /Failed to acquire connection|Connection timed out/i.test(error.message)
}

const isBodyTooLarge = (defect: unknown): boolean => {
  let cause: any = defect
  for (let i = 0; i < 4 && cause; i++) {
    if (/maxBytes|too large|exceeds/i.test(String(cause.message ?? ""))) return true
    cause = cause.cause
  }
  return false
}

/**
 * Our errors are rendered here rather than by the builder's encoder: they
 * share one shape (`{error}`), which a schema union cannot tell apart, so the
 * error's tag picks its wire schema (and so its status). Encoding checks the
 * value is an instance of that class: another error that merely carries the
 * same tag is not ours.
 */
const render = (error: unknown): Option.Option<HttpServerResponse.HttpServerResponse> => {
  if (!Predicate.hasProperty(error, "_tag") || typeof error._tag !== "string" || !Object.hasOwn(wireByTag, error._tag)) {
    return Option.none()
  }
  const schema = wireByTag[error._tag as keyof typeof wireByTag] as Schema.Schema<unknown, unknown>
  return Option.map(
    Schema.encodeOption(schema)(error),
    (body) => HttpServerResponse.unsafeJson(body, { status: HttpApiSchema.getStatusErrorAST(schema.ast) })
  )
}

const respond = (error: unknown): Effect.Effect<HttpServerResponse.HttpServerResponse, unknown> =>
  Option.match(render(error), { onNone: () => Effect.fail(error), onSome: Effect.succeed })

export const translateCause = <E>(cause: Cause.Cause<E>): Effect.Effect<HttpServerResponse.HttpServerResponse, unknown> =>
  translate(cause).pipe(Effect.catchAll(respond))

const translate = <E>(cause: Cause.Cause<E>): Effect.Effect<never, unknown> => {
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure)) {
    const error = failure.value as unknown
    if (error instanceof HttpApiError.HttpApiDecodeError) {
      // A path segment that is no id names nothing: 404 as for a missing one (see Contract/Domain/Uuids.pathId).
      const missing = notFoundMessage(error.issues)
      return Effect.fail(missing === undefined ? toValidationError(error) : new NotFound({ error: missing }))
    }
    if (HttpServerError.isServerError(error) && error._tag === "RouteNotFound") {
      return Effect.fail(new NotFound({ error: "route not found" }))
    }
    if (error instanceof SqlError) return fromSqlError(error, cause)
    return Effect.failCause(cause as Cause.Cause<unknown>)
  }
  const defect = Cause.dieOption(cause)
  if (Option.isSome(defect)) {
    const error = defect.value
    if (HttpServerError.isServerError(error) && error._tag === "RequestError") {
      if (isBodyTooLarge(error)) return Effect.fail(new PayloadTooLarge({ error: "request body over 1 MiB" }))
      return Effect.fail(new BadRequest({ error: "malformed request body: expected valid JSON" }))
    }
    if (error instanceof SqlError) return fromSqlError(error, cause)
    return Effect.logError("unhandled defect", cause).pipe(Effect.zipRight(Effect.fail(InternalError.default)))
  }
  if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause as Cause.Cause<unknown>)
  return Effect.logError("unhandled failure", cause).pipe(Effect.zipRight(Effect.fail(InternalError.default)))
}

const fromSqlError = (error: SqlError, cause: Cause.Cause<unknown>) =>
  isUnavailable(error)
    ? Effect.logWarning("database unavailable").pipe(Effect.annotateLogs({ error: error.message })).pipe(Effect.zipRight(Effect.fail(ServiceUnavailable.default)))
    : Effect.logError("database error", cause).pipe(Effect.zipRight(Effect.fail(InternalError.default)))

/** Requests whose declared length is over 1 MiB are refused before reading. */
export const maxBodyBytes = 1024 * 1024

// The builder types API middleware as infallible because it encodes failures
// right after it; the replacements above are declared API errors, so they are
// encoded there like any handler's error.
export const layer = HttpApiBuilder.middleware((app) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const declared = Number(request.headers["content-length"] ?? 0)
    if (declared > maxBodyBytes) {
      return Effect.fail(new PayloadTooLarge({ error: "request body over 1 MiB" }))
    }
    // Bodies without a declared length (chunked) are cut off while reading.
    return HttpIncomingMessage.withMaxBodySize(app, Option.some(maxBodyBytes))
  }).pipe(Effect.catchAllCause(translateCause)) as unknown as Effect.Effect<HttpServerResponse.HttpServerResponse>
)
