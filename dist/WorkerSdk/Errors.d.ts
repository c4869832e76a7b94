import * as Effect from "effect/Effect";
import { Unauthorized } from "../Domain/Errors.js";
declare const WorkerConfigError_base: new <A extends Record<string, any> = {}>(args: import("effect/Types").VoidIfEmpty<{ readonly [P in keyof A as P extends "_tag" ? never : P]: A[P]; }>) => import("effect/Cause").YieldableError & {
    readonly _tag: "WorkerConfigError";
} & Readonly<A>;
/**
 * The worker's own failures. Transient server errors (5xx, 503, network) are
 * never among them: the worker retries those with backoff for as long as it
 * runs. What remains stops the worker, because retrying cannot fix it.
 */
/** The options cannot work: a malformed URL, a server that is not this service, missing credentials. */
export declare class WorkerConfigError extends WorkerConfigError_base<{
    readonly message: string;
}> {
}
declare const WorkerUnauthorized_base: new <A extends Record<string, any> = {}>(args: import("effect/Types").VoidIfEmpty<{ readonly [P in keyof A as P extends "_tag" ? never : P]: A[P]; }>) => import("effect/Cause").YieldableError & {
    readonly _tag: "WorkerUnauthorized";
} & Readonly<A>;
/** The `wkt_` token was refused (revoked, deleted worker, or never valid): 401. */
export declare class WorkerUnauthorized extends WorkerUnauthorized_base<{
    readonly message: string;
}> {
}
declare const WorkerRegistrationError_base: new <A extends Record<string, any> = {}>(args: import("effect/Types").VoidIfEmpty<{ readonly [P in keyof A as P extends "_tag" ? never : P]: A[P]; }>) => import("effect/Cause").YieldableError & {
    readonly _tag: "WorkerRegistrationError";
} & Readonly<A>;
/** The `wrk_` registration token was refused: unknown, or already used. */
export declare class WorkerRegistrationError extends WorkerRegistrationError_base<{
    readonly message: string;
}> {
}
export type WorkerError = WorkerConfigError | WorkerUnauthorized | WorkerRegistrationError;
/** 401 on any call means the token no longer works: the worker cannot continue. */
export declare const fatalUnauthorized: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, Exclude<E, Unauthorized> | WorkerUnauthorized, R>;
export {};
//# sourceMappingURL=Errors.d.ts.map