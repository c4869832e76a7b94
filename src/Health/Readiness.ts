import * as SqlClient from "@effect/sql/SqlClient"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as SqlMigrations from "../Db/SqlMigrations.js"
import { Tuning } from "../Config/Tuning.js"

export type NotReady = "draining" | "database unreachable" | "migrations pending"

/**
 * Whether this instance should get traffic: the database answers, this
 * build's migrations are applied, and no shutdown has begun (a SIGTERM flips
 * `draining` before the port closes, see `drainOnSignal`).
 */
export class Readiness extends Effect.Service<Readiness>()("Health/Readiness", {
  effect: Effect.gen(function*() {
    // The newest file of `migrations/`: a database whose table lacks it is not this package's schema yet.
    const latestMigration = yield* Effect.orDie(SqlMigrations.latestId())
    let draining = false
    const drained = yield* Deferred.make<void>()
    return {
      markDraining: Effect.sync(() => {
        draining = true
        Deferred.unsafeDone(drained, Exit.void)
      }),
      isDraining: Effect.sync(() => draining),
      /** Completes when the shutdown begins: what waits for work (a long poll) should answer now. */
      whenDraining: Deferred.await(drained),
      /** Why this instance is not ready, or undefined when it is. */
      check: Effect.fnUntraced(function*(sql: SqlClient.SqlClient) {
        if (draining) return "draining" as const
        const rows = yield* sql<{ latest: number | null }>`SELECT max(migration_id)::int AS latest FROM pts_migrations`.pipe(
          Effect.timeout("2 seconds"),
          Effect.option
        )
        if (rows._tag === "None") return "database unreachable" as const
        return (rows.value[0]?.latest ?? 0) >= latestMigration ? undefined : "migrations pending" as const
      })
    }
  })
}) {}

/**
 * SIGTERM/SIGINT mark the instance draining at once (the runtime's own
 * handler starts the shutdown in the same tick). Built after the HTTP
 * server, so its finalizer runs first on shutdown: it holds the server open
 * for `SHUTDOWN_DELAY_SECONDS` while readiness answers 503.
 */
export const drainOnSignal = Layer.scopedDiscard(Effect.gen(function*() {
  const readiness = yield* Readiness
  const delay = (yield* Tuning).shutdownDelaySeconds
  const onSignal = () => Effect.runSync(readiness.markDraining)
  yield* Effect.acquireRelease(
    Effect.sync(() => {
      process.once("SIGTERM", onSignal)
      process.once("SIGINT", onSignal)
    }),
    () =>
      Effect.gen(function*() {
        process.removeListener("SIGTERM", onSignal)
        process.removeListener("SIGINT", onSignal)
        if (delay > 0 && (yield* readiness.isDraining)) {
          yield* Effect.logInfo("draining: readiness answers 503").pipe(Effect.annotateLogs({ delaySeconds: delay }))
          yield* Effect.sleep(`${delay} seconds`)
        }
      })
  )
}))
