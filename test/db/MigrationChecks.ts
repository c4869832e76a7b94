import { expect, it } from "@effect/vitest"
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as fs from "node:fs"
import { migrate } from "../../src/Db/Migrations.js"
import * as SqlMigrations from "../../src/Db/SqlMigrations.js"

/**
 * The ids and names the TypeScript migrations (`src/Db/migrations/*.ts`,
 * registered with `Migrator.fromRecord`) recorded in `pts_migrations` before
 * they became the files of `migrations/`.
 */
export const recordedByTypeScript = [
  "0001_initial",
  "0002_outbox_payload_at_delivery",
  "0003_hot_run_updates",
  "0004_run_events",
  "0005_run_cancellation",
  "0006_worker_revoke_drain_redelivery",
  "0007_history_at_scale",
  "0008_scheduled_triggers",
  "0009_mcp_actor",
  "0010_key_fingerprints",
  "0011_run_series_buckets"
]

/** The tables a fresh database holds after every migration, in our schema. */
export const tables = [
  "api_keys",
  "audit_log",
  "environments",
  "key_fingerprints",
  "login_failures",
  "members",
  "pts_migrations",
  "run_daily_totals",
  "run_events",
  "run_series_buckets",
  "runs",
  "sessions",
  "triggers",
  "users",
  "webhook_deliveries",
  "webhook_outbox",
  "workers",
  "workspaces"
]

const recorded = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ migration_id: number; name: string }>`SELECT migration_id, name FROM pts_migrations ORDER BY migration_id`.withoutTransform
).pipe(Effect.map((rows) => rows.map((row) => `${String(row.migration_id).padStart(4, "0")}_${row.name}`)))

const ourTables = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ table_name: string }>`SELECT table_name FROM information_schema.tables
    WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`.withoutTransform
).pipe(Effect.map((rows) => rows.map((row) => row.table_name)))

const files = fs.readdirSync(SqlMigrations.directory).filter((name) => name.endsWith(".sql")).sort()

/**
 * What the migration files must do on a backend; `database` gives a fresh,
 * unmigrated database each time it is built.
 */
export const migrationChecks = (database: Layer.Layer<SqlClient.SqlClient, unknown>) => {
  it.scoped("a fresh database runs every file once, in order, into the schema's tables", () =>
    Effect.gen(function*() {
      const ran = yield* migrate
      expect(ran.map(([id, name]) => `${String(id).padStart(4, "0")}_${name}.sql`)).toEqual(files)
      expect(yield* recorded).toEqual(files.map((file) => file.replace(/\.sql$/, "")))
      expect(yield* ourTables).toEqual(tables)
      // Once: a second start finds nothing due.
      expect(yield* migrate).toEqual([])
      expect(yield* recorded).toHaveLength(files.length)
    }).pipe(Effect.provide(database)))

  it.scoped("a database migrated by the TypeScript migrations sees nothing new", () =>
    Effect.gen(function*() {
      // The old registration: same table, keys `NNNN_name`, each running that migration's SQL.
      const sql = yield* SqlClient.SqlClient
      const old = Object.fromEntries(recordedByTypeScript.map((key) => [
        key,
        Effect.flatMap(
          Effect.promise(() => fs.promises.readFile(`${SqlMigrations.directory}/${key}.sql`, "utf8")),
          (text) => sql.unsafe(text)
        )
      ]))
      const byTypeScript = yield* Migrator.make({})({ loader: Migrator.fromRecord(old), table: "pts_migrations" })
      expect(byTypeScript).toHaveLength(recordedByTypeScript.length)
      const before = yield* recorded

      expect(yield* migrate).toEqual([])
      expect(yield* recorded).toEqual(before)
      expect(yield* ourTables).toEqual(tables)
    }).pipe(Effect.provide(database)))
}
