import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as SqlMigrations from "./SqlMigrations.js"

const run = Migrator.make({})

/**
 * Applies the due files of `migrations/` (see `SqlMigrations`), in id order,
 * each once: `pts_migrations` records what ran. Instances (and processes)
 * starting together take turns on a transaction-scoped advisory lock: the
 * Migrator's own lock on `pts_migrations` only protects a table that exists,
 * and two starts on an empty database would both try to create it.
 */
export const migrate = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.withTransaction(
    sql`SELECT pg_advisory_xact_lock(hashtext('pipeline-trigger-service:migrate'))`.pipe(
      // The Migrator's own definition; created here, under the lock, so its `CREATE TABLE` never races.
      Effect.zipRight(sql`CREATE TABLE IF NOT EXISTS pts_migrations (
        migration_id integer primary key,
        created_at timestamp with time zone not null default now(),
        name text not null
      )`),
      Effect.zipRight(run({ loader: SqlMigrations.loader(), table: "pts_migrations" }))
    )
  )).pipe(
    Effect.tap((ran) => ran.length > 0 ? Effect.logInfo("migrations applied").pipe(Effect.annotateLogs({ migrations: ran.map(([id, name]) => `${id}_${name}`).join(",") })) : Effect.void),
    Effect.withSpan("Db.migrate")
  )
