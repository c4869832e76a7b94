import * as Cause from "effect/Cause";
import * as ConfigError from "effect/ConfigError";
import * as Effect from "effect/Effect";
/**
 * What an operator reads when the service cannot start: the reason in plain
 * lines (not one escaped log field holding a stack), and the fix where we know it.
 */
const describe = (error) => {
    if (ConfigError.isConfigError(error)) {
        const { message, path } = error;
        if (message === undefined)
            return `configuration: ${String(error)}`;
        return path !== undefined && path.length > 0 ? `configuration: ${path.join(".")}: ${message}` : `configuration: ${message}`;
    }
    if (typeof error === "object" && error !== null) {
        const tagged = error;
        if (tagged._tag === "SqlError" || tagged._tag === "MigrationError") {
            // The database's own words are at the end of the cause chain (MigrationError → SqlError → pg error).
            let deepest = tagged.cause;
            while (typeof deepest === "object" && deepest !== null && deepest.cause !== undefined) {
                deepest = deepest.cause;
            }
            const inner = deepest instanceof Error ? `\n  database said: ${deepest.message}` : "";
            return `database: ${tagged.message ?? "failed"}${inner}`;
        }
        if (typeof tagged.message === "string" && tagged.message.length > 0)
            return tagged.message;
    }
    return String(error);
};
/** The readable report of a failed start (or a crash); empty for a plain shutdown. */
export const report = (cause) => {
    if (Cause.isInterruptedOnly(cause))
        return undefined;
    const reasons = [...Cause.failures(cause), ...Cause.defects(cause)].map(describe);
    return ["pipeline-trigger-service stopped:", ...reasons.map((r) => `  ${r.replace(/\n/g, "\n  ")}`)].join("\n");
};
/**
 * Logs the failure (structured, at Error) and writes the readable report to
 * stderr: the process is ending, and the last thing on the terminal should
 * say why in words.
 */
export const handle = (effect) => Effect.tapErrorCause(effect, (cause) => {
    const text = report(cause);
    if (text === undefined)
        return Effect.void;
    return Effect.logError("the service stopped").pipe(Effect.annotateLogs({ reason: text }), Effect.zipRight(Effect.sync(() => process.stderr.write(`\n${text}\n`))));
});
//# sourceMappingURL=StartupFailure.js.map