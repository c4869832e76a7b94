import * as Cause from "effect/Cause";
import * as Effect from "effect/Effect";
/** The readable report of a failed start (or a crash); empty for a plain shutdown. */
export declare const report: (cause: Cause.Cause<unknown>) => string | undefined;
/**
 * Logs the failure (structured, at Error) and writes the readable report to
 * stderr: the process is ending, and the last thing on the terminal should
 * say why in words.
 */
export declare const handle: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>;
//# sourceMappingURL=StartupFailure.d.ts.map