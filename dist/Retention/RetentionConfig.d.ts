import type * as ConfigError from "effect/ConfigError";
import * as Context from "effect/Context";
import * as Layer from "effect/Layer";
import * as Option from "effect/Option";
/** How long run history is kept, and how it is deleted (see `Retention`). */
export interface RetentionConfigShape {
    /** Terminal runs that ended more than this many days ago are deleted; none = kept forever (`RUN_RETENTION_DAYS`). */
    readonly runRetentionDays: Option.Option<number>;
    /** Rows per DELETE statement. Default 1000. */
    readonly batchSize: number;
    /** Pause between two statements of a pass, so other work gets the connection and the disk. Default 200 ms. */
    readonly pauseMillis: number;
    /** Time between passes. Default 10 minutes. */
    readonly intervalMillis: number;
}
declare const RetentionConfig_base: Context.TagClass<RetentionConfig, "Retention/Config", RetentionConfigShape>;
export declare class RetentionConfig extends RetentionConfig_base {
    static readonly defaults: RetentionConfigShape;
}
/** `RUN_RETENTION_DAYS` from the environment (or an embedding program's `ConfigProvider`), the rest default. */
export declare const layer: Layer.Layer<RetentionConfig, ConfigError.ConfigError>;
/** The defaults with the given overrides (tests, embedding programs). */
export declare const layerWith: (overrides?: Partial<RetentionConfigShape>) => Layer.Layer<RetentionConfig>;
export {};
//# sourceMappingURL=RetentionConfig.d.ts.map