import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { randomBytes } from "node:crypto"
import { layerPg } from "../../src/Db/Database.js"
import { migrate } from "../../src/Db/Migrations.js"
import type { Notifications } from "../../src/Db/Notifications.js"
import * as PgliteClient from "../../src/Db/PgliteClient.js"

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

export const layer: Layer.Layer<SqlClient.SqlClient | Notifications, unknown> = usingPostgres()
  ? Layer.unwrapScoped(Effect.map(freshDatabaseUrl, layerFromUrl)).pipe(Layer.provide(Reactivity.layer))
  : PgliteClient.layer(undefined).pipe(Layer.tap((ctx) => migrate.pipe(Effect.provide(ctx))))
