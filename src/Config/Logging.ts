import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Settings from "./Settings.js"

/**
 * Structured logging through Effect's logger: `LOG_FORMAT` (`logfmt` by
 * default, `json` for log pipelines, `pretty` for a terminal) and `LOG_LEVEL`
 * (`Info` by default).
 */
export const fromEnv: Effect.Effect<Layer.Layer<never>, ConfigError.ConfigError> = Effect.gen(function*() {
  // Effect's names (Trace, Debug, Info, Warn, Error, Fatal, None), any case; "warning" is accepted for Warn.
  const level = yield* Settings.parsed("LOG_LEVEL", "one of Trace, Debug, Info, Warn (or Warning), Error, Fatal, None, any case", (raw) => {
    const name = raw.trim().toLowerCase() === "warning" ? "warn" : raw.trim().toLowerCase()
    return LogLevel.allLevels.find((l) => l.label.toLowerCase() === name || l._tag.toLowerCase() === name)
  }).pipe(Config.withDefault(LogLevel.Info))
  const format = yield* Settings.oneOf("LOG_FORMAT", ["logfmt", "json", "pretty", "structured"] as const).pipe(
    Config.withDefault("logfmt" as const)
  )
  const logger = format === "json"
    ? Logger.json
    : format === "pretty"
    ? Logger.pretty
    : format === "structured"
    ? Logger.structured
    : Logger.logFmt
  return Layer.merge(logger, Logger.minimumLogLevel(level))
})

/** The logger `fromEnv` chooses. */
export const layer = Layer.unwrapEffect(fromEnv)
