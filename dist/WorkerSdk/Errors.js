import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import { Unauthorized } from "../Domain/Errors.js";
/**
 * The worker's own failures. Transient server errors (5xx, 503, network) are
 * never among them: the worker retries those with backoff for as long as it
 * runs. What remains stops the worker, because retrying cannot fix it.
 */
/** The options cannot work: a malformed URL, a server that is not this service, missing credentials. */
export class WorkerConfigError extends Data.TaggedError("WorkerConfigError") {
}
/** The `wkt_` token was refused (revoked, deleted worker, or never valid): 401. */
export class WorkerUnauthorized extends Data.TaggedError("WorkerUnauthorized") {
}
/** The `wrk_` registration token was refused: unknown, or already used. */
export class WorkerRegistrationError extends Data.TaggedError("WorkerRegistrationError") {
}
/** 401 on any call means the token no longer works: the worker cannot continue. */
export const fatalUnauthorized = (effect) => Effect.catchAll(effect, (error) => error instanceof Unauthorized
    ? Effect.fail(new WorkerUnauthorized({ message: "worker token refused (401): it was revoked, or the worker was deleted; register again with a new wrk_ token" }))
    : Effect.fail(error));
//# sourceMappingURL=Errors.js.map