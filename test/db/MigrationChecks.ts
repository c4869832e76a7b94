import { expect, it } from "@effect/vitest"
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { migrate, migrateFrom } from "../../src/Db/Migrations.js"
import * as SqlMigrations from "../../src/Db/SqlMigrations.js"
import { RunLogsRepo } from "../../src/RunLogs/RunLogsRepo.js"

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
  "bulk_action_runs",
  "bulk_actions",
  "concurrency_pools",
  "environments",
  "key_fingerprints",
  "login_failures",
  "members",
  "pts_migrations",
  "run_daily_totals",
  "run_events",
  "run_log_chunks",
  "run_log_state",
  "run_series_buckets",
  "run_tags",
  "runs",
  "service_instances",
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

  it.scoped("a database migrated by the TypeScript migrations sees only the files added since", () =>
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

      const since = files.map((file) => file.replace(/\.sql$/, "")).filter((key) => !recordedByTypeScript.includes(key))
      expect((yield* migrate).map(([id, name]) => `${String(id).padStart(4, "0")}_${name}`)).toEqual(since)
      expect(yield* recorded).toEqual([...before, ...since])
      expect(yield* ourTables).toEqual(tables)
    }).pipe(Effect.provide(database)))

  it.scoped("a file whose id is below one already applied still runs (branches land migrations in any order)", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pts-migrations-gap-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
      fs.writeFileSync(path.join(dir, "0001_one.sql"), "CREATE TABLE gap_one (id int);")
      fs.writeFileSync(path.join(dir, "0003_three.sql"), "CREATE TABLE gap_three (id int);")
      expect(yield* migrateFrom(dir)).toEqual([[1, "one"], [3, "three"]])
      // 0002 lands after a database already recorded 0003.
      fs.writeFileSync(path.join(dir, "0002_two.sql"), "CREATE TABLE gap_two (id int);")
      expect(yield* migrateFrom(dir)).toEqual([[2, "two"]])
      expect(yield* migrateFrom(dir)).toEqual([])
      expect(yield* recorded).toEqual(["0001_one", "0002_two", "0003_three"])
      expect((yield* ourTables).filter((name) => name.startsWith("gap_"))).toEqual(["gap_one", "gap_three", "gap_two"])
    }).pipe(Effect.provide(database)))

  it.scoped("0012 gives each existing trigger its default input's command (a string, or an argv array as its quoted shell line)", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const upTo = (last: number) =>
        Migrator.make({})({
          loader: Effect.map(SqlMigrations.loader(), (all) => all.filter(([id]) => id <= last)),
          table: "pts_migrations"
        })
      yield* upTo(11)
      const user = "00000000-0000-4000-8000-000000000001"
      const workspace = "00000000-0000-4000-8000-000000000002"
      const environment = "00000000-0000-4000-8000-000000000003"
      yield* sql`INSERT INTO users (id, email, password_hash) VALUES (${user}, 'a@example.com', 'x')`
      yield* sql`INSERT INTO workspaces (id, name, owner_id) VALUES (${workspace}, 'w', ${user})`
      yield* sql`INSERT INTO environments (id, workspace_id, name) VALUES (${environment}, ${workspace}, 'e')`
      const inputs: Record<string, unknown> = {
        "00000000-0000-4000-8000-00000000000a": { command: "echo hello; date", ref: "main" },
        "00000000-0000-4000-8000-00000000000b": { command: ["/bin/echo", "it's $HOME"] },
        "00000000-0000-4000-8000-00000000000c": { table: "orders" },
        "00000000-0000-4000-8000-00000000000d": null,
        "00000000-0000-4000-8000-00000000000e": { command: ["ok", 1] }
      }
      for (const [id, input] of Object.entries(inputs)) {
        yield* sql`INSERT INTO triggers (id, environment_id, name, input, timeout_seconds, heartbeat_timeout_seconds, max_retries)
          VALUES (${id}, ${environment}, 't', ${input === null ? null : JSON.stringify(input)}::jsonb, 60, 30, 0)`
      }
      yield* migrate
      const rows = yield* sql<{ id: string; command: string | null; input: unknown }>`SELECT id, command, input FROM triggers ORDER BY id`
      expect(rows.map((r) => r.command)).toEqual([
        "echo hello; date",
        `'/bin/echo' 'it'\\''s $HOME'`,
        null,
        null,
        null
      ])
      // The input is left as it was: data for the command now.
      expect(rows[0]!.input).toEqual(inputs["00000000-0000-4000-8000-00000000000a"])
    }).pipe(Effect.provide(database)))

  it.scoped("0019 moves the lines stored one per row into chunks: every line read back, in order, by the repository's pages", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* Migrator.make({})({
        loader: Effect.map(SqlMigrations.loader(), (all) => all.filter(([id]) => id <= 18)),
        table: "pts_migrations"
      })
      const user = "00000000-0000-4000-8000-000000000001"
      const workspace = "00000000-0000-4000-8000-000000000002"
      const environment = "00000000-0000-4000-8000-000000000003"
      const trigger = "00000000-0000-4000-8000-000000000004"
      const runs = ["00000000-0000-4000-8000-0000000000a1", "00000000-0000-4000-8000-0000000000a2"]
      yield* sql`INSERT INTO users (id, email, password_hash) VALUES (${user}, 'a@example.com', 'x')`
      yield* sql`INSERT INTO workspaces (id, name, owner_id) VALUES (${workspace}, 'w', ${user})`
      yield* sql`INSERT INTO environments (id, workspace_id, name) VALUES (${environment}, ${workspace}, 'e')`
      yield* sql`INSERT INTO triggers (id, environment_id, name, timeout_seconds, heartbeat_timeout_seconds, max_retries)
        VALUES (${trigger}, ${environment}, 't', 60, 30, 0)`
      for (const run of runs) {
        yield* sql`INSERT INTO runs (id, trigger_id, environment_id, status, timeout_seconds, heartbeat_timeout_seconds, max_retries)
          VALUES (${run}, ${trigger}, ${environment}, 'succeeded', 60, 30, 0)`
      }
      // 2,500 lines (more than one chunk's worth) for the first run, 3 for the second.
      const at = (seq: number) => new Date(Date.UTC(2026, 0, 1) + seq * 1000)
      const expected = (count: number) =>
        Array.from({ length: count }, (_, i) => ({ seq: i + 1, stream: i % 3 === 0 ? "stderr" : "stdout", text: `line ${i + 1} \u00e9`, at: at(i + 1) }))
      for (const [run, count] of [[runs[0]!, 2500], [runs[1]!, 3]] as const) {
        const lines = expected(count)
        yield* sql`INSERT INTO run_logs (run_id, seq, stream, text, at)
          SELECT ${run}, l.seq, l.stream, l.text, l.at
          FROM unnest(${lines.map((l) => l.seq)}::bigint[], ${lines.map((l) => l.stream)}::text[],
                      ${lines.map((l) => l.text)}::text[], ${lines.map((l) => l.at.toISOString())}::timestamptz[])
            AS l(seq, stream, text, at)`
      }
      yield* migrate
      expect(yield* ourTables).toEqual(tables)
      const repo = yield* RunLogsRepo.pipe(Effect.provide(RunLogsRepo.Default))
      // Pages that start and end inside chunks and cross their edges, and one past the end.
      const first = expected(2500)
      expect(yield* repo.page(runs[0]!, 0, 1000)).toEqual(first.slice(0, 1000))
      expect(yield* repo.page(runs[0]!, 998, 5)).toEqual(first.slice(998, 1003))
      expect(yield* repo.page(runs[0]!, 1500, 1000)).toEqual(first.slice(1500, 2500))
      expect(yield* repo.page(runs[0]!, 2499, 10)).toEqual(first.slice(2499))
      expect(yield* repo.page(runs[0]!, 2500, 10)).toEqual([])
      expect(yield* repo.page(runs[1]!, 0, 1000)).toEqual(expected(3))
      const chunks = yield* sql<{ run_id: string; first_seq: string; last_seq: string }>`
        SELECT run_id, first_seq, last_seq FROM run_log_chunks ORDER BY run_id, first_seq`
      expect(chunks.map((c) => [c.run_id, Number(c.first_seq), Number(c.last_seq)])).toEqual([
        [runs[0], 1, 1000], [runs[0], 1001, 2000], [runs[0], 2001, 2500], [runs[1], 1, 3]
      ])
      // Deleted with the run, as before.
      yield* sql`DELETE FROM runs WHERE id = ${runs[0]!}`
      expect(yield* sql`SELECT run_id FROM run_log_chunks WHERE run_id = ${runs[0]!}`).toEqual([])
    }).pipe(Effect.provide(database)))
}
