import * as Effect from "effect/Effect";
import * as Schedule from "effect/Schedule";
/**
 * Errors worth retrying: the service could not answer now (network failure,
 * timeout, 5xx, 408, 429) or answered something unreadable (a proxy's HTML
 * error page). Everything else is an answer, and retrying would repeat it.
 */
export declare const isTransient: (error: unknown) => boolean;
/** A one-line description for logs and error messages; never includes a token. */
export declare const describe: (error: unknown) => string;
/**
 * Exponential backoff from 250 ms, doubling, jittered, capped at 30 s between
 * attempts: a worker outlives service restarts and network blips.
 */
export declare const defaultRetrySchedule: Schedule.Schedule<unknown, unknown>;
/**
 * Retries `effect` while it fails transiently, logging each failure (a
 * reconnecting worker says so), with `schedule` deciding the delays and when
 * to give up.
 */
export declare const retryTransient: <A, E, R>(effect: Effect.Effect<A, E, R>, what: string, schedule: Schedule.Schedule<unknown, unknown>) => Effect.Effect<A, E, R>;
//# sourceMappingURL=Transient.d.ts.map