import * as SqlClient from "@effect/sql/SqlClient"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { SqlError } from "@effect/sql/SqlError"
import Pg from "pg"
import * as path from "node:path"
import { AppConfig } from "../Config/AppConfig.js"
import { Notifications } from "./Notifications.js"
import * as PgListener from "./PgListener.js"
import * as PoolStats from "./PoolStats.js"
import * as PgliteClient from "./PgliteClient.js"
import { preparingClient } from "./PreparedStatements.js"
import { migrate } from "./Migrations.js"
import * as Schema from "./Schema.js"

const connectTimeout = Duration.seconds(5)

/**
 * The `pg` pool `@effect/sql-pg`'s own constructor would make, except for the
 * client class: with `preparedStatements`, parameterized statements are named
 * and prepared once per connection (see `PreparedStatements`).
 */
/** How each of our connections is opened: the pool's and the one that LISTENs. */
const connectionOptions = (url: Redacted.Redacted, schema: string): Pg.ClientConfig => ({
  connectionString: Redacted.value(url),
  connectionTimeoutMillis: Duration.toMillis(connectTimeout),
  application_name: "pipeline-trigger-service",
  // Every connection of our own pool sees our schema first (see Schema.ts).
  // JIT off: a short OLTP statement whose estimate crosses jit_above_cost (a
  // bound the planner cannot see, e.g. a CTE's now()) spent 35-60 ms compiling
  // for a 15 ms execution on a 1,000,000-run history (docs/benchmarks.md).
  options: `-c search_path=${Schema.searchPath(schema)} -c jit=off`
})

/**
 * A `pg` pool whose hand-over of a freed connection never recurses. `pg-pool`
 * gives a released connection to the next waiter inside the release call, and
 * `@effect/sql-pg` gives it straight back when that waiter was abandoned (its
 * fiber interrupted): with thousands abandoned at once (3,000 worker channels
 * closing together) the chain of releases overflowed the stack, a
 * `RangeError` thrown from a `pg` callback that ended the service process.
 * A waiter served while another waiter's callback runs is served on a
 * microtask of its own instead, so the chain runs as a loop.
 */
class TrampolinedPool extends Pg.Pool {
  #serving = false

  override connect(...args: Array<any>): any {
    const callback = args[0]
    if (typeof callback !== "function") return super.connect()
    return super.connect((...answer: Array<any>) => {
      if (this.#serving) queueMicrotask(() => this.#serve(callback, answer))
      else this.#serve(callback, answer)
    })
  }

  #serve(callback: (...answer: Array<any>) => void, answer: Array<any>): void {
    this.#serving = true
    try {
      callback(...answer)
    } finally {
      this.#serving = false
    }
  }
}

const pool = (url: Redacted.Redacted, preparedStatements: boolean, schema: string) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const pool = new TrampolinedPool({
        ...connectionOptions(url, schema),
        max: 20,
        idleTimeoutMillis: 30_000,
        ...(preparedStatements ? { Client: preparingClient() } : {})
      })
      // An idle connection's error (server restart) is the pool's to handle: it drops the client.
      pool.on("error", () => {})
      PoolStats.track(pool)
      return pool
    }),
    (pool) => Effect.promise(() => pool.end()).pipe(Effect.timeoutOption(1000), Effect.ensuring(Effect.sync(() => PoolStats.untrack(pool))))
  ).pipe(
    Effect.tap((pool) =>
      Effect.tryPromise({
        try: () => pool.query("SELECT 1"),
        catch: (cause) => new SqlError({ cause, message: "PgClient: Failed to connect" })
      }).pipe(
        Effect.timeoutFail({
          duration: connectTimeout,
          onTimeout: () => new SqlError({ cause: new Error("Connection timed out"), message: "PgClient: Connection timed out" })
        })
      )
    )
  )

/**
 * A real Postgres server through `@effect/sql-pg`, plus LISTEN/NOTIFY. The
 * tables live in `options.schema` (default `pipeline_triggers`), created here
 * before anything else runs.
 */
export const layerPg = (
  url: Redacted.Redacted,
  options: { readonly preparedStatements?: boolean; readonly schema?: string } = {}
) =>
  Layer.scoped(
    Notifications,
    Effect.zipWith(PgListener.make(connectionOptions(url, options.schema ?? Schema.defaultSchema)), PgClient.PgClient, (listen, pg) =>
      Notifications.of({
        listen,
        // Not `pg.notify`: it sends `NOTIFY channel, $1`, which cannot be a parameterized
        // (prepared) statement; the function form can, and goes through the same pool.
        notify: (channel, payload) => Effect.asVoid(pg`SELECT pg_notify(${channel}, ${payload})`)
      }))
  ).pipe(
    Layer.provideMerge(
      PgClient.layerFromPool({
        acquire: pool(url, options.preparedStatements ?? true, options.schema ?? Schema.defaultSchema)
      }).pipe(Layer.tap((ctx) => Schema.prepare(options.schema ?? Schema.defaultSchema).pipe(Effect.provide(ctx))))
    )
  )

/**
 * The database the configuration names: `DATABASE_URL` when set, otherwise an
 * embedded Postgres persisted under `DATA_DIR/pg`. Migrations run on both.
 */
export const layer: Layer.Layer<SqlClient.SqlClient | Notifications, unknown, AppConfig> = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) =>
    Option.match(config.databaseUrl, {
      onNone: () => PgliteClient.layer(path.join(config.dataDir, "pg"), config.databaseSchema),
      onSome: (url) =>
        layerPg(url, { preparedStatements: config.databasePreparedStatements, schema: config.databaseSchema })
    }))
).pipe(Layer.tap((ctx) => migrate.pipe(Effect.provide(ctx))))

