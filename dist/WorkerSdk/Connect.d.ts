import type { HttpClient } from "@effect/platform";
import * as Effect from "effect/Effect";
import * as Redacted from "effect/Redacted";
import type * as Schedule from "effect/Schedule";
import { WorkerConfigError, WorkerRegistrationError, WorkerUnauthorized } from "./Errors.js";
import type { WorkerCredentials } from "./Types.js";
/** A malformed URL is a configuration error, not something to retry. */
export declare const validateBaseUrl: (baseUrl: string) => Effect.Effect<string, WorkerConfigError>;
/**
 * Waits until the service answers its health check. Unreachable or 5xx: retried
 * with backoff (logged). Any other answer means the URL names something else.
 */
export declare const awaitService: (baseUrl: string, schedule?: Schedule.Schedule<unknown, unknown>) => Effect.Effect<void, WorkerConfigError, HttpClient.HttpClient>;
/**
 * Registers a worker with a single-use `wrk_` token and answers its id and
 * `wkt_` token. Transient failures are retried; a refused token is final.
 */
export declare const register: (baseUrl: string, registrationToken: string | Redacted.Redacted<string>, options?: {
    readonly label?: string | undefined;
    readonly retrySchedule?: Schedule.Schedule<unknown, unknown> | undefined;
}) => Effect.Effect<WorkerCredentials, WorkerRegistrationError | WorkerConfigError, HttpClient.HttpClient>;
/**
 * The credentials of the worker a `wkt_` token belongs to (`GET /workers/me`),
 * for an agent that was given only its token.
 */
export declare const identify: (baseUrl: string, token: string | Redacted.Redacted<string>, options?: {
    readonly retrySchedule?: Schedule.Schedule<unknown, unknown> | undefined;
}) => Effect.Effect<WorkerCredentials, WorkerUnauthorized | WorkerConfigError, HttpClient.HttpClient>;
//# sourceMappingURL=Connect.d.ts.map