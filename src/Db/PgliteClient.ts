import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import * as PgClient from "@effect/sql-pg/PgClient"
import { PGlite } from "@electric-sql/pglite"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as Permits from "../Concurrency/Permits.js"
import { Notifications } from "./Notifications.js"
import * as DataDir from "./DataDir.js"
import * as DataDirLock from "./DataDirLock.js"
import * as PgliteMemory from "./PgliteMemory.js"
import * as Schema from "./Schema.js"

export interface Options {
  /**
   * A data directory dumped by PGlite's `dumpDataDir` to start from instead of
   * an empty one: skips `initdb`, the seconds a new database costs (the tests
   * start each in-memory database from one dump, already migrated).
   */
  readonly loadDataDir?: Blob
}

/**
 * A `SqlClient` over one embedded PGlite database.
 *
 * PGlite is a single Postgres session: statements from two "connections" would
 * interleave inside one session, so an open transaction would swallow another
 * fiber's statements (or block them forever). One permit guards the session:
 * a transaction holds it from BEGIN to COMMIT, every other statement takes it
 * for the duration of the statement.
 */
export const make = (dataDir: string | undefined, schema: string = Schema.defaultSchema, options: Options = {}) =>
  Effect.gen(function*() {
    // One process per data directory (see DataDirLock); released after the database is closed.
    if (dataDir !== undefined) yield* DataDirLock.hold(dataDir)
    if (dataDir !== undefined) {
      yield* Effect.try({
        // PGlite creates the database directory but not its parents: a new
        // program pointed at `./pipelines-data` must not fail with ENOENT.
        try: () => DataDir.makeDirectory(dataDir),
        catch: (cause) => new SqlError({ cause, message: "PGlite: failed to open the embedded database" })
      })
      // A dump to load needs an empty directory: PGlite refuses to load it over a database.
      if (options.loadDataDir === undefined) yield* PgliteMemory.initInChild(dataDir)
    }
    const db = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => open(dataDir, schema, options),
        catch: (cause) => new SqlError({ cause, message: "PGlite: failed to open the embedded database" })
      }),
      (db) => Effect.promise(() => db.close()).pipe(Effect.ignore)
    )
    return yield* over(db)
  })

/** Opens (or creates) the embedded database in `dataDir` (in memory when undefined), its session on our schema. */
export const open = async (dataDir: string | undefined, schema: string = Schema.defaultSchema, options: Options = {}): Promise<PGlite> => {
  const db = await PGlite.create(dataDir, {
    ...(options.loadDataDir === undefined ? {} : { loadDataDir: options.loadDataDir }),
    startParams: [...PgliteMemory.startParams],
    // Match node-postgres: int8 and numeric as strings, never lossy numbers.
    parsers: { 20: (x: string) => x, 1700: (x: string) => x }
  })
  // One session for the whole life of the database: our schema first, set once.
  await db.exec(`${Schema.prepareStatement(schema)}; SET search_path TO ${Schema.searchPath(schema)}`)
    .catch(async (error) => {
      await db.close()
      throw error
    })
  return db
}

/**
 * The `SqlClient` and `Notifications` over an open PGlite database, which the
 * caller opened and closes (`make` with the scope; the tests keep one open
 * across a file's tests, see test/support/TestDatabase.ts).
 */
export const over = (db: PGlite) =>
  Effect.gen(function*() {
    // One statement or transaction at a time (PGlite has one connection).
    const lock = yield* Permits.make(1)

    // Without parameters, `exec` uses the simple protocol, which also accepts
    // several statements (migrations); the last statement's rows are returned.
    const run = (sql: string, params: ReadonlyArray<unknown>) =>
      Effect.tryPromise({
        try: () =>
          params.length === 0
            ? db.exec(sql).then((rs) => rs.at(-1) ?? { rows: [] as Array<any>, fields: [] })
            : db.query<any>(sql, params as Array<unknown>),
        catch: (cause) => new SqlError({ cause, message: "Failed to execute statement" })
      })

    const makeConnection = (locked: boolean): Connection => {
      const guard = <A>(eff: Effect.Effect<A, SqlError>) => locked ? eff : lock.withPermit(eff)
      const rows = (sql: string, params: ReadonlyArray<unknown>) => guard(Effect.map(run(sql, params), (r) => r.rows))
      return {
        execute: (sql, params, transformRows) =>
          transformRows ? Effect.map(rows(sql, params), transformRows) : rows(sql, params),
        executeRaw: (sql, params) => guard(run(sql, params)),
        executeValues: (sql, params) =>
          guard(Effect.tryPromise({
            try: () => db.query<any>(sql, params as Array<unknown>, { rowMode: "array" }),
            catch: (cause) => new SqlError({ cause, message: "Failed to execute statement" })
          })).pipe(Effect.map((r) => r.rows as ReadonlyArray<ReadonlyArray<unknown>>)),
        executeUnprepared: (sql, params, transformRows) =>
          transformRows ? Effect.map(rows(sql, params), transformRows) : rows(sql, params),
        executeStream: (sql, params, transformRows) =>
          Stream.fromIterableEffect(
            transformRows ? Effect.map(rows(sql, params), transformRows) : rows(sql, params)
          )
      }
    }

    const unlocked = makeConnection(false)
    const client = yield* SqlClient.make({
      acquirer: Effect.succeed(unlocked),
      transactionAcquirer: Effect.as(lock.acquireScoped, makeConnection(true)),
      compiler: PgClient.makeCompiler(),
      spanAttributes: [["db.system.name", "postgresql"], ["db.namespace", "pglite"]]
    })

    const notifications = Notifications.of({
      listen: (channel) =>
        Stream.asyncPush<string, SqlError>((emit) =>
          Effect.acquireRelease(
            Effect.tryPromise({
              try: () => db.listen(channel, (payload) => emit.single(payload)),
              catch: (cause) => new SqlError({ cause, message: "Failed to listen" })
            }),
            (unlisten) => Effect.promise(() => unlisten()).pipe(Effect.ignore)
          )
        ),
      notify: (channel, payload) =>
        client`SELECT pg_notify(${channel}, ${payload})`.pipe(Effect.asVoid)
    })

    return { client, notifications }
  })

/** `SqlClient` and `Notifications` over an embedded database in `dataDir` (in memory when undefined). */
export const layer = (
  dataDir: string | undefined,
  schema?: string,
  options?: Options
): Layer.Layer<SqlClient.SqlClient | Notifications, SqlError | DataDirLock.DataDirInUse> =>
  Layer.scopedContext(
    Effect.map(make(dataDir, schema, options), ({ client, notifications }) =>
      Context.make(SqlClient.SqlClient, client).pipe(Context.add(Notifications, notifications)))
  ).pipe(Layer.provide(Reactivity.layer))
