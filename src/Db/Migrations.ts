import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as SqlMigrations from "./SqlMigrations.js"

/**
 * Applies every file of `migrations/` (see `SqlMigrations`) that
 * `pts_migrations` does not record yet, in id order, each once, in one
 * transaction. Unlike `@effect/sql`'s Migrator (which runs only the ids above
 * the newest recorded one), a file whose id is below one already applied
 * still runs: branches that each add a migration land in any order, and a
 * database migrated between two landings must not skip the earlier id.
 * Instances (and processes) starting together take turns on a
 * transaction-scoped advisory lock, which also covers the `CREATE TABLE` of an
 * empty database.
 */
export const migrateFrom = (dir: string = SqlMigrations.directory): Effect.Effect<
  ReadonlyArray<readonly [id: number, name: string]>,
  Migrator.MigrationError | SqlError,
  SqlClient.SqlClient
> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.withTransaction(Effect.gen(function*() {
    yield* sql`SELECT pg_advisory_xact_lock(hashtext('pipeline-trigger-service:migrate'))`
    // The Migrator's table definition, kept so databases it migrated read the same.
    yield* sql`CREATE TABLE IF NOT EXISTS pts_migrations (
      migration_id integer primary key,
      created_at timestamp with time zone not null default now(),
      name text not null
    )`
    const applied = new Set(
      (yield* sql<{ migration_id: number }>`SELECT migration_id FROM pts_migrations`.withoutTransform).map((row) => Number(row.migration_id))
    )
    const files = yield* SqlMigrations.list(dir)
    const due = files.filter((file) => !applied.has(file.id))
    for (const file of due) {
      yield* Effect.flatten(SqlMigrations.statement(file.file)).pipe(
        Effect.mapError((cause) =>
          cause instanceof Migrator.MigrationError
            ? cause
            : new Migrator.MigrationError({ reason: "failed", message: `Migration ${file.id}_${file.name} failed: ${cause.message}`, cause })
        )
      )
      yield* sql`INSERT INTO pts_migrations (migration_id, name) VALUES (${file.id}, ${file.name})`
    }
    return due.map((file) => [file.id, file.name] as const)
  }))).pipe(
    Effect.tap((ran) => ran.length > 0 ? Effect.logInfo("migrations applied").pipe(Effect.annotateLogs({ migrations: ran.map(([id, name]) => `${id}_${name}`).join(",") })) : Effect.void),
    Effect.withSpan("Db.migrate")
  )

/** The package's own `migrations/` (see `migrateFrom`). */
export const migrate = migrateFrom()
