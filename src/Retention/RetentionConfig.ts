import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"

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

/** `RUN_RETENTION_DAYS` from the environment (or an embedding program's `ConfigProvider`), the rest default. */
export const layer: Layer.Layer<RetentionConfig, ConfigError.ConfigError> = Layer.effect(
  RetentionConfig,
  Effect.map(
    Config.integer("RUN_RETENTION_DAYS").pipe(
      Config.validate({ message: "RUN_RETENTION_DAYS must be a whole number of days, at least 1", validation: (n) => n >= 1 }),
      Config.withDescription("delete terminal runs that ended more than this many days ago; unset = keep forever"),
      Config.option
    ),
    (runRetentionDays) => ({ ...RetentionConfig.defaults, runRetentionDays })
  )
)

/** The defaults with the given overrides (tests, embedding programs). */
export const layerWith = (overrides: Partial<RetentionConfigShape> = {}): Layer.Layer<RetentionConfig> =>
  Layer.succeed(RetentionConfig, { ...RetentionConfig.defaults, ...overrides })
