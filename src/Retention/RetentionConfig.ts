import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Settings from "../Config/Settings.js"

/** How long run history is kept, and how it is deleted (see `Retention`). */
export interface RetentionConfigShape {
  /** Terminal runs that ended more than this many days ago are deleted; none = kept forever (`RUN_RETENTION_DAYS`). */
  readonly runRetentionDays: Option.Option<number>
  /** Rows per DELETE statement. Default 1000. */
  readonly batchSize: number
  /** Pause between two statements of a pass, so other work gets the connection and the disk. Default 200 ms. */
  readonly pauseMillis: number
  /** Time between passes. Default 10 minutes. */
  readonly intervalMillis: number
}

export class RetentionConfig extends Context.Tag("Retention/Config")<RetentionConfig, RetentionConfigShape>() {
  static readonly defaults: RetentionConfigShape = {
    runRetentionDays: Option.none(),
    batchSize: 1000,
    pauseMillis: 200,
    intervalMillis: 10 * 60_000
  }
}

/** `RUN_RETENTION_DAYS` as the environment (or an embedding program's `ConfigProvider`) sets it. */
export const fromEnv = Settings.wholeNumber("RUN_RETENTION_DAYS", { min: 1, unit: "days" }).pipe(
  Config.withDescription("delete terminal runs that ended more than this many days ago; unset = keep forever"),
  Config.option
)

/** `RUN_RETENTION_DAYS` from the environment, the rest default. */
export const layer: Layer.Layer<RetentionConfig, ConfigError.ConfigError> = Layer.effect(
  RetentionConfig,
  Effect.map(fromEnv, (runRetentionDays) => ({ ...RetentionConfig.defaults, runRetentionDays }))
)

/** The defaults with the given overrides (tests, embedding programs). */
export const layerWith = (overrides: Partial<RetentionConfigShape> = {}): Layer.Layer<RetentionConfig> =>
  Layer.succeed(RetentionConfig, { ...RetentionConfig.defaults, ...overrides })
