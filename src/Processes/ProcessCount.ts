import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as os from "node:os"
import { databaseUrlConfig } from "../Config/AppConfig.js"
import * as Settings from "../Config/Settings.js"

/** `WEB_CONCURRENCY`: how many service processes one start runs (they share the port). */
export const webConcurrency = Settings.wholeNumber("WEB_CONCURRENCY", { min: 1, unit: "service processes" }).pipe(
  Config.withDescription("service processes sharing the port; default = CPU cores on DATABASE_URL, always 1 on the embedded database"),
  Config.option
)

/**
 * How many processes to run. On a Postgres server every process is one more
 * instance on the shared database, so the default uses every core. The
 * embedded database is a file one process opens (see Db/DataDirLock): it
 * stays at one, and a larger WEB_CONCURRENCY is refused in the log, not obeyed.
 */
export const processCount: Effect.Effect<number, unknown> = Effect.gen(function*() {
  // The one setting, not the whole `AppConfig`: building that here would
  // run its start-up work (generating development keys, logging it) twice.
  const databaseUrl = yield* databaseUrlConfig
  const asked = yield* webConcurrency
  if (Option.isNone(databaseUrl)) {
    if (Option.isSome(asked) && asked.value > 1) {
      yield* Effect.logWarning("WEB_CONCURRENCY ignored: the embedded database is opened by one process; set DATABASE_URL to run several").pipe(
        Effect.annotateLogs({ webConcurrency: asked.value, processes: 1 })
      )
    }
    return 1
  }
  return Option.getOrElse(asked, () => os.availableParallelism())
})
