import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import * as PgClient from "@effect/sql-pg/PgClient"
import type { PGlite } from "@electric-sql/pglite"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import { inject } from "vitest"
import { layerPg } from "../../src/Db/Database.js"
import { migrate } from "../../src/Db/Migrations.js"
import { Notifications } from "../../src/Db/Notifications.js"
import * as PgliteClient from "../../src/Db/PgliteClient.js"
import * as Schema from "../../src/Db/Schema.js"

/**
 * A fresh, migrated database for one test file: with `DATABASE_URL` set, a
 * newly created database on that server (dropped afterwards); otherwise an
 * in-memory embedded Postgres.
 */
export const freshDatabaseUrl = Effect.gen(function*() {
  const base = process.env.DATABASE_URL!
  const name = `pts_test_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`
  const admin = yield* PgClient.make({ url: Redacted.make(base), maxConnections: 1 })
  yield* admin.unsafe(`CREATE DATABASE ${name}`)
  yield* Effect.addFinalizer(() =>
    admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).pipe(Effect.ignore)
  )
  const url = new URL(base)
  url.pathname = `/${name}`
  return url.toString()
})

export const usingPostgres = (): boolean => (process.env.DATABASE_URL ?? "").length > 0

/** A database as a Layer; `url` lets several app instances share one Postgres database. */
export const layerFromUrl = (url: string) =>
  layerPg(Redacted.make(url)).pipe(Layer.tap((ctx) => migrate.pipe(Effect.provide(ctx))))

let template: Blob | undefined | null = null

/**
 * The migrated dump the global setup made (see PgliteTemplate), read once per
 * worker process; undefined outside that setup, or when the file is gone
 * (an embedded database is then made from scratch, only slower).
 */
export const pgliteTemplate = (): Blob | undefined => {
  if (template !== null) return template
  const file = inject("pgliteTemplate")
  template = undefined
  if (file !== undefined) {
    try {
      template = new Blob([fs.readFileSync(file)])
    } catch {
      // left undefined: initdb instead
    }
  }
  return template
}

/**
 * PgliteClient options for a new embedded database in `dataDir` (in memory when
 * undefined): loaded from the template when there is one and the directory does
 * not exist yet (an existing one is opened as it is, as on a restart).
 */
export const pgliteOptions = (dataDir?: string): PgliteClient.Options => {
  if (dataDir !== undefined && fs.existsSync(dataDir)) return {}
  const loadDataDir = pgliteTemplate()
  return loadDataDir === undefined ? {} : { loadDataDir }
}

/**
 * Creates a migrated embedded database in `dataDir` from the template and
 * closes it: a service process started on its directory then opens it without
 * `initdb` (seconds of CPU). For tests whose subject is not the first start.
 */
export const seedPgliteDir = (dataDir: string): Promise<void> =>
  Effect.runPromise(
    Effect.scoped(Effect.flatMap(Layer.build(PgliteClient.layer(dataDir, undefined, pgliteOptions(dataDir))), (ctx) => Effect.provide(migrate, ctx)))
  ).then(() => undefined)

/**
 * An in-memory database a test finished with, emptied for the next test of
 * the same file (this worker process): `shape` is its schema's fingerprint
 * once migrated, checked before it is used again.
 */
interface Pooled {
  readonly db: PGlite
  shape: string | undefined
}

const idle: Array<Pooled> = []

/**
 * A fingerprint of everything a test could change besides rows: tables and
 * columns, indexes, constraints, triggers, functions, schemas, roles. A test
 * that altered any of it leaves a database that is closed, not reused.
 */
const shapeQuery = `
  SELECT md5(string_agg(x, E'\n' ORDER BY x)) AS shape FROM (
    SELECT 'c ' || table_schema || '.' || table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' || coalesce(column_default, '') AS x
      FROM information_schema.columns WHERE table_schema NOT IN ('pg_catalog', 'information_schema')
    UNION ALL SELECT 'i ' || schemaname || ' ' || indexdef FROM pg_indexes WHERE schemaname NOT IN ('pg_catalog', 'information_schema')
    UNION ALL SELECT 'k ' || conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint
      WHERE connamespace NOT IN ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)
    UNION ALL SELECT 't ' || tgrelid::regclass::text || ' ' || tgname || ' ' || tgenabled::text FROM pg_trigger WHERE NOT tgisinternal
    UNION ALL SELECT 'f ' || oid::regprocedure::text || ' ' || md5(prosrc) FROM pg_proc
      WHERE pronamespace NOT IN ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)
    UNION ALL SELECT 'n ' || nspname FROM pg_namespace
    UNION ALL SELECT 'r ' || rolname FROM pg_roles
    UNION ALL SELECT 'o ' || relname || ' ' || relkind::text FROM pg_class
      WHERE relnamespace NOT IN ('pg_catalog'::regnamespace, 'information_schema'::regnamespace) AND relkind IN ('r', 'S', 'v', 'm', 'p')
  ) shape`

const shapeOf = async (db: PGlite): Promise<string> =>
  (await db.query<{ shape: string }>(shapeQuery)).rows[0]!.shape

/**
 * Empties a database a test finished with, as a freshly migrated one (no
 * rows but the migrations' record, sequences restarted, the session's state
 * discarded: locks, LISTENs, settings); false when it cannot be made so (its
 * shape changed, a statement failed), and it is to be closed.
 */
const reset = async (pooled: Pooled): Promise<boolean> => {
  if (pooled.shape === undefined) return false
  try {
    await pooled.db.exec("DISCARD ALL")
    await pooled.db.exec(`SET search_path TO ${Schema.searchPath(Schema.defaultSchema)}`)
    if ((await shapeOf(pooled.db)) !== pooled.shape) return false
    const tables = (await pooled.db.query<{ name: string }>(`
      SELECT quote_ident(schemaname) || '.' || quote_ident(tablename) AS name FROM pg_tables
      WHERE schemaname NOT IN ('pg_catalog', 'information_schema') AND tablename <> 'pts_migrations'`)).rows
    if (tables.length > 0) await pooled.db.exec(`TRUNCATE ${tables.map((t) => t.name).join(", ")} RESTART IDENTITY CASCADE`)
    return true
  } catch {
    return false
  }
}

/**
 * An in-memory embedded database for one layer's life: one a previous test of
 * this file gave back (emptied), else a new one from the template. A new
 * database costs 2-4 s of CPU (15 s at load 16), emptying one 0.1 s: the
 * files that start a scheduler per test (a scheduler takes over every run it
 * finds, so each needs a database of its own) pay it once, not per test.
 * Given back only after a test that passed; otherwise closed.
 */
const pooledPglite = Effect.acquireRelease(
  Effect.tryPromise(async (): Promise<Pooled> =>
    idle.pop() ?? { db: await PgliteClient.open(undefined, undefined, pgliteOptions()), shape: undefined }
  ),
  (pooled, exit) =>
    Effect.promise(async () => {
      if (Exit.isSuccess(exit) && await reset(pooled)) idle.push(pooled)
      else await pooled.db.close().catch(() => undefined)
    })
)

/** An empty, migrated, in-memory embedded database (see `pooledPglite`). */
export const layerPglite: Layer.Layer<SqlClient.SqlClient | Notifications, unknown> = Layer.scopedContext(
  Effect.gen(function*() {
    const pooled = yield* pooledPglite
    const { client, notifications } = yield* PgliteClient.over(pooled.db)
    const context = Context.make(SqlClient.SqlClient, client).pipe(Context.add(Notifications, notifications))
    yield* Effect.provide(migrate, context)
    if (pooled.shape === undefined) pooled.shape = yield* Effect.promise(() => shapeOf(pooled.db))
    return context
  })
).pipe(Layer.provide(Reactivity.layer))

/**
 * Fails a database that is not open and migrated within 150 s, before the file's
 * setup timeout (180 s, vitest.config.ts), saying what was waited for and how
 * loaded the machine was.
 */
const withinSetupDeadline = <A, E, R>(database: Layer.Layer<A, E, R>): Layer.Layer<A, unknown, R> =>
  Layer.scopedContext(
    Layer.build(database).pipe(
      Effect.timeoutFail({
        duration: "150 seconds",
        onTimeout: () =>
          new Error(
            `the test database was not open and migrated after 150 s (load average ${os.loadavg().map((l) => l.toFixed(1)).join(" / ")} on ${os.availableParallelism()} cores)`
          )
      })
    )
  )

export const layer: Layer.Layer<SqlClient.SqlClient | Notifications, unknown> = withinSetupDeadline(
  usingPostgres()
    ? Layer.unwrapScoped(Effect.map(freshDatabaseUrl, layerFromUrl)).pipe(Layer.provide(Reactivity.layer))
    : layerPglite
)
