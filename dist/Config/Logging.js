import * as Config from "effect/Config";
import * as ConfigError from "effect/ConfigError";
import * as Either from "effect/Either";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Logger from "effect/Logger";
import * as LogLevel from "effect/LogLevel";
/**
 * Structured logging through Effect's logger: `LOG_FORMAT` (`logfmt` by
 * default, `json` for log pipelines, `pretty` for a terminal) and `LOG_LEVEL`
 * (`Info` by default).
 */
export const layer = Layer.unwrapEffect(Effect.gen(function* () {
    // Effect's names (Trace, Debug, Info, Warn, Error, Fatal, None), any case; "warning" is accepted for Warn.
    const level = yield* Config.string("LOG_LEVEL").pipe(Config.withDefault("Info"), Config.mapOrFail((raw) => {
        const name = raw.trim().toLowerCase() === "warning" ? "warn" : raw.trim().toLowerCase();
        const found = LogLevel.allLevels.find((l) => l.label.toLowerCase() === name || l._tag.toLowerCase() === name);
        return found
            ? Either.right(found)
            : Either.left(ConfigError.InvalidData([], `LOG_LEVEL must be one of Trace, Debug, Info, Warn, Error, Fatal, None (got ${raw})`));
    }));
    const format = yield* Config.literal("logfmt", "json", "pretty", "structured")("LOG_FORMAT").pipe(Config.withDefault("logfmt"));
    const logger = format === "json"
        ? Logger.json
        : format === "pretty"
            ? Logger.pretty
            : format === "structured"
                ? Logger.structured
                : Logger.logFmt;
    return Layer.merge(logger, Logger.minimumLogLevel(level));
}));
//# sourceMappingURL=Logging.js.map