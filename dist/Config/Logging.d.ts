import * as ConfigError from "effect/ConfigError";
import * as Layer from "effect/Layer";
/**
 * Structured logging through Effect's logger: `LOG_FORMAT` (`logfmt` by
 * default, `json` for log pipelines, `pretty` for a terminal) and `LOG_LEVEL`
 * (`Info` by default).
 */
export declare const layer: Layer.Layer<never, ConfigError.ConfigError, never>;
//# sourceMappingURL=Logging.d.ts.map