import * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as AppConfig from "../Config/AppConfig.js"
import * as Tracing from "../Config/Tracing.js"
import * as Tuning from "../Config/Tuning.js"
import * as DataDir from "../Db/DataDir.js"
import * as RetentionConfig from "../Retention/RetentionConfig.js"
import * as WorkerChannelConfig from "../WorkerChannel/ChannelConfig.js"
import { webConcurrency } from "./ProcessCount.js"

/**
 * Every environment variable the service reads, read and checked before
 * anything slow starts (the embedded database takes seconds to open, and some
 * settings are otherwise read only once it has): a bad one ends the start
 * at once, and every bad one is reported together, each naming its variable,
 * its value and what is allowed. DATA_DIR too, on the embedded database.
 * The service reads them again where they are used; this only refuses early.
 */
export const check: Effect.Effect<void, ConfigError.ConfigError> = Effect.gen(function*() {
  const results = yield* Effect.all([
    Effect.either(AppConfig.settings),
    Effect.either(Tuning.config),
    Effect.either(Tracing.config),
    Effect.either(RetentionConfig.fromEnv),
    Effect.either(WorkerChannelConfig.fromEnv),
    Effect.either(webConcurrency)
  ])
  const errors = results.flatMap((result) => result._tag === "Left" ? [result.left] : [])
  const app = results[0]
  if (app._tag === "Right" && Option.isNone(app.right.databaseUrl)) {
    const dataDir = yield* Effect.either(DataDir.check(app.right.dataDir))
    if (dataDir._tag === "Left") errors.push(dataDir.left)
  }
  if (errors.length > 0) return yield* Effect.fail(errors.reduce((all, error) => ConfigError.And(all, error)))
})
