import * as Config from "effect/Config";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Option from "effect/Option";
export class RetentionConfig extends Context.Tag("Retention/Config")() {
    static defaults = {
        runRetentionDays: Option.none(),
        batchSize: 1000,
        pauseMillis: 200,
        intervalMillis: 10 * 60_000
    };
}
/** `RUN_RETENTION_DAYS` from the environment (or an embedding program's `ConfigProvider`), the rest default. */
export const layer = Layer.effect(RetentionConfig, Effect.map(Config.integer("RUN_RETENTION_DAYS").pipe(Config.validate({ message: "RUN_RETENTION_DAYS must be a whole number of days, at least 1", validation: (n) => n >= 1 }), Config.withDescription("delete terminal runs that ended more than this many days ago; unset = keep forever"), Config.option), (runRetentionDays) => ({ ...RetentionConfig.defaults, runRetentionDays })));
/** The defaults with the given overrides (tests, embedding programs). */
export const layerWith = (overrides = {}) => Layer.succeed(RetentionConfig, { ...RetentionConfig.defaults, ...overrides });
//# sourceMappingURL=RetentionConfig.js.map