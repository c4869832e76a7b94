import type * as HttpClient from "@effect/platform/HttpClient"
import * as Effect from "effect/Effect"
import * as ParseResult from "effect/ParseResult"
import * as Redacted from "effect/Redacted"
import type * as Schedule from "effect/Schedule"
import { makeClient } from "../Client.js"
import { NotFound, Unauthorized, ValidationError } from "../Contract/Domain/ApiErrors.js"
import { WorkerConfigError, WorkerRegistrationError, WorkerUnauthorized } from "./Errors.js"
import { defaultRetrySchedule, describe, retryTransient } from "./Transient.js"
import type { WorkerCredentials } from "./Types.js"

/**
 * Reaching the service and establishing who the worker is: the URL check, the
 * health wait, registration with a `wrk_` token, identification by a `wkt_` token.
 */

const toRedacted = (value: string | Redacted.Redacted<string>): Redacted.Redacted<string> =>
  Redacted.isRedacted(value) ? value : Redacted.make(value)

/** A malformed URL is a configuration error, not something to retry. */
export const validateBaseUrl = (baseUrl: string): Effect.Effect<string, WorkerConfigError> => {
  try {
    const url = new URL(baseUrl)
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("not http(s)")
    return Effect.succeed(url.toString().replace(/\/+$/, ""))
  } catch {
    return Effect.fail(new WorkerConfigError({ message: `invalid service URL "${baseUrl}": expected an http(s) URL such as http://localhost:3000` }))
  }
}

/**
 * Waits until the service answers its health check. Unreachable or 5xx: retried
 * with backoff (logged). Any other answer means the URL names something else.
 */
export const awaitService = (
  baseUrl: string,
  schedule: Schedule.Schedule<unknown, unknown> = defaultRetrySchedule
): Effect.Effect<void, WorkerConfigError, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const url = yield* validateBaseUrl(baseUrl)
    const client = yield* makeClient(url)
    yield* retryTransient(
      client.health.health().pipe(
        Effect.timeout("30 seconds"),
        // An unreadable answer here is not a blip: it is a different server.
        Effect.catchIf(ParseResult.isParseError, () =>
          Effect.fail(new WorkerConfigError({
            message: `${url} does not answer like a Pipeline Trigger Service (GET /api/v1/health); give the service's origin, e.g. http://localhost:3000`
          })))
      ),
      "connecting to the service",
      schedule
    ).pipe(
      Effect.catchAll((error) =>
        error instanceof WorkerConfigError ? Effect.fail(error) : Effect.fail(new WorkerConfigError({
          message: `${url} does not answer like a Pipeline Trigger Service (${describe(error)}); give the service's origin, e.g. http://localhost:3000`
        }))
      )
    )
  })

/**
 * Registers a worker with a single-use `wrk_` token and answers its id and
 * `wkt_` token. Transient failures are retried; a refused token is final.
 */
export const register = (
  baseUrl: string,
  registrationToken: string | Redacted.Redacted<string>,
  options: { readonly label?: string | undefined; readonly retrySchedule?: Schedule.Schedule<unknown, unknown> | undefined } = {}
): Effect.Effect<WorkerCredentials, WorkerRegistrationError | WorkerConfigError, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const url = yield* validateBaseUrl(baseUrl)
    const client = yield* makeClient(url)
    const token = Redacted.value(toRedacted(registrationToken))
    const payload = options.label === undefined ? { registrationToken: token } : { registrationToken: token, label: options.label }
    const registration = yield* retryTransient(
      client.workers.register({ payload }).pipe(Effect.timeout("30 seconds")),
      "registering the worker",
      options.retrySchedule ?? defaultRetrySchedule
    ).pipe(
      Effect.catchAll((error) => {
        if (error instanceof Unauthorized) {
          return Effect.fail(new WorkerRegistrationError({ message: "registration token refused: it is unknown or was already used (mint a new wrk_ token)" }))
        }
        if (error instanceof ValidationError) {
          const fields = Object.entries(error.details.fieldErrors).map(([k, v]) => `${k}: ${v.join(", ")}`)
          return Effect.fail(new WorkerRegistrationError({ message: `registration refused: ${[...fields, ...error.details.formErrors].join("; ")}` }))
        }
        return Effect.fail(new WorkerRegistrationError({ message: `registration failed: ${describe(error)}` }))
      })
    )
    yield* Effect.logInfo("worker registered").pipe(Effect.annotateLogs({ workerId: registration.worker.id }))
    return { workerId: registration.worker.id, token: Redacted.make(registration.token) }
  })

/**
 * The credentials of the worker a `wkt_` token belongs to (`GET /workers/me`),
 * for an agent that was given only its token.
 */
export const identify = (
  baseUrl: string,
  token: string | Redacted.Redacted<string>,
  options: { readonly retrySchedule?: Schedule.Schedule<unknown, unknown> | undefined } = {}
): Effect.Effect<WorkerCredentials, WorkerUnauthorized | WorkerConfigError, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const url = yield* validateBaseUrl(baseUrl)
    const redacted = toRedacted(token)
    const client = yield* makeClient(url, { bearer: redacted })
    const worker = yield* retryTransient(
      client.workerProtocol.me().pipe(Effect.timeout("30 seconds")),
      "identifying the worker",
      options.retrySchedule ?? defaultRetrySchedule
    ).pipe(
      Effect.catchAll((error) =>
        Effect.fail(
          error instanceof Unauthorized || error instanceof NotFound
            ? new WorkerUnauthorized({ message: "worker token refused: it is unknown or its worker was removed" })
            : new WorkerConfigError({ message: `could not identify the worker: ${describe(error)}` })
        )
      )
    )
    return { workerId: worker.id, token: redacted }
  })
