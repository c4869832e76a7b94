import * as Cause from "effect/Cause"
import * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Settings from "./Settings.js"

/**
 * What an operator reads when the service cannot start: the reason in plain
 * lines (not one escaped log field holding a stack), and the fix where we know it.
 */
const describe = (error: unknown): string => {
  if (ConfigError.isConfigError(error)) {
    // Each refused setting on its own line: its variable, its value, what is allowed.
    return Settings.describeAll(error).map((line) => `configuration: ${line}`).join("\n")
  }
  if (typeof error === "object" && error !== null) {
    const tagged = error as { _tag?: string; message?: string; cause?: unknown }
    if (tagged._tag === "SqlError" || tagged._tag === "MigrationError") {
      // The database's own words are at the end of the cause chain (MigrationError → SqlError → pg error).
      let deepest: unknown = tagged.cause
      while (typeof deepest === "object" && deepest !== null && (deepest as { cause?: unknown }).cause !== undefined) {
        deepest = (deepest as { cause: unknown }).cause
      }
      const inner = deepest instanceof Error ? `\n  database said: ${deepest.message}` : ""
      return `database: ${tagged.message ?? "failed"}${inner}`
    }
    if (tagged._tag === "ServeError") {
      // The listen error (EADDRINUSE, EACCES) is the cause; the error itself has no message.
      const cause = tagged.cause instanceof Error ? tagged.cause.message : String(tagged.cause)
      return `HTTP server could not listen (PORT, HOST): ${cause}`
    }
    if (typeof tagged.message === "string" && tagged.message.length > 0) return tagged.message
  }
  return String(error)
}

/** The readable report of a failed start (or a crash); empty for a plain shutdown. */
export const report = (cause: Cause.Cause<unknown>): string | undefined => {
  if (Cause.isInterruptedOnly(cause)) return undefined
  const reasons = [...Cause.failures(cause), ...Cause.defects(cause)].map(describe)
  return ["pipeline-trigger-service stopped:", ...reasons.map((r) => `  ${r.replace(/\n/g, "\n  ")}`)].join("\n")
}

/**
 * Logs the failure (structured, at Error) and writes the readable report to
 * stderr: the process is ending, and the last thing on the terminal should
 * say why in words.
 */
export const handle = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.tapErrorCause(effect, (cause) => {
    const text = report(cause)
    if (text === undefined) return Effect.void
    return Effect.logError("the service stopped").pipe(
      Effect.annotateLogs({ reason: text }),
      Effect.zipRight(Effect.sync(() => process.stderr.write(`\n${text}\n`)))
    )
  })

/**
 * `handle` for what runs before the logger exists (reading LOG_LEVEL and
 * LOG_FORMAT themselves): the readable report on stderr alone.
 */
export const handleUnlogged = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.tapErrorCause(effect, (cause) => {
    const text = report(cause)
    return text === undefined ? Effect.void : Effect.sync(() => process.stderr.write(`\n${text}\n`))
  })
