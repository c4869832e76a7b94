import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as fs from "node:fs"
import { layerPg } from "../../src/Db/Database.js"
import { migrate } from "../../src/Db/Migrations.js"
import * as SqlMigrations from "../../src/Db/SqlMigrations.js"
import { freshDatabaseUrl } from "../support/TestDatabase.js"
import { migrationChecks } from "./MigrationChecks.js"

describe("migrations on Postgres", () => {
  migrationChecks(
    Layer.unwrapScoped(Effect.map(freshDatabaseUrl, (url) => layerPg(Redacted.make(url)))).pipe(Layer.provide(Reactivity.layer))
  )

  // Instances (or the processes of one) starting together on an empty database: before
  // `pts_migrations` exists there is no table for the Migrator's own lock to hold.
  it.scoped("four starts migrating an empty database at once all succeed, and each file runs once", () =>
    Effect.gen(function*() {
      const url = yield* freshDatabaseUrl
      const start = Effect.gen(function*() {
        const context = yield* Layer.build(layerPg(Redacted.make(url)).pipe(Layer.provide(Reactivity.layer)))
        return yield* Effect.provide(migrate, context)
      })
      const ran = yield* Effect.all([start, start, start, start], { concurrency: "unbounded" })
      const files = fs.readdirSync(SqlMigrations.directory).filter((name) => name.endsWith(".sql"))
      // One start applied every file, the others found nothing due.
      expect(ran.map((r) => r.length).sort((a, b) => b - a)).toEqual([files.length, 0, 0, 0])
      const context = yield* Layer.build(layerPg(Redacted.make(url)).pipe(Layer.provide(Reactivity.layer)))
      const rows = yield* Effect.provide(
        Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM pts_migrations`),
        context
      )
      expect(rows[0]!.n).toBe(files.length)
    }).pipe(Effect.provide(Reactivity.layer)), { timeout: 120_000 })
})
