import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"

/**
 * Structured logging through Effect's logger: `LOG_FORMAT` (`logfmt` by
 * default, `json` for log pipelines, `pretty` for a terminal) and `LOG_LEVEL`
 * (`Info` by default).
 */
export const layer = Layer.unwrapEffect(
  Effect.gen(function*() {
    const level = yield* Config.logLevel("LOG_LEVEL").pipe(Config.withDefault(LogLevel.Info))
    const format = yield* Config.literal("logfmt", "json", "pretty", "structured")("LOG_FORMAT").pipe(
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
)
