import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { Unauthorized } from "../Contract/Domain/ApiErrors.js"

/**
 * The worker's own failures. Transient server errors (5xx, 503, network) are
 * never among them: the worker retries those with backoff for as long as it
 * runs. What remains stops the worker, because retrying cannot fix it.
 */

/** The options cannot work: a malformed URL, a server that is not this service, missing credentials. */
export class WorkerConfigError extends Data.TaggedError("WorkerConfigError")<{ readonly message: string }> {}

/** The `wkt_` token was refused (revoked, deleted worker, or never valid): 401. */
export class WorkerUnauthorized extends Data.TaggedError("WorkerUnauthorized")<{ readonly message: string }> {}

/** The `wrk_` registration token was refused: unknown, or already used. */
export class WorkerRegistrationError extends Data.TaggedError("WorkerRegistrationError")<{ readonly message: string }> {}

/**
 * A handler's failure that no retry will fix (bad input, a missing secret):
 * fail the handler with it and the run completes `failed` with
 * `retryable: false`, so the service makes no retry whatever the trigger's
 * `maxRetries`. Any other failure leaves retrying to the trigger's policy.
 */
export class NonRetryable extends Data.TaggedError("NonRetryable")<{ readonly message: string }> {}

export type WorkerError = WorkerConfigError | WorkerUnauthorized | WorkerRegistrationError

/** 401 on any call means the token no longer works: the worker cannot continue. */
export const fatalUnauthorized = <A, E, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, Exclude<E, Unauthorized> | WorkerUnauthorized, R> =>
  Effect.catchAll(effect, (error): Effect.Effect<never, Exclude<E, Unauthorized> | WorkerUnauthorized> =>
    error instanceof Unauthorized
      ? Effect.fail(new WorkerUnauthorized({ message: "worker token refused (401): it was revoked, or the worker was deleted; register again with a new wrk_ token" }))
      : Effect.fail(error as Exclude<E, Unauthorized>))
