import * as Migrator from "@effect/sql/Migrator"
import * as Effect from "effect/Effect"
import * as SqlMigrations from "./SqlMigrations.js"

const run = Migrator.make({})

/**
 * Applies the due files of `migrations/` (see `SqlMigrations`), in id order,
 * each once: `pts_migrations` records what ran, and the Migrator holds a lock
 * on it, so instances starting together do not both run one.
 */
export const migrate = run({
  loader: SqlMigrations.loader(),
  table: "pts_migrations"
}).pipe(
  Effect.tap((ran) => ran.length > 0 ? Effect.logInfo("migrations applied").pipe(Effect.annotateLogs({ migrations: ran.map(([id, name]) => `${id}_${name}`).join(",") })) : Effect.void),
  Effect.withSpan("Db.migrate")
)
