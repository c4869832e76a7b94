import * as Reactivity from "@effect/experimental/Reactivity"
import type * as SqlClient from "@effect/sql/SqlClient"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { layerHttp } from "../../src/App.js"
import { testConfig as configWith } from "../support/TestConfig.js"
import { migrate } from "../../src/Db/Migrations.js"
import type { Notifications } from "../../src/Db/Notifications.js"
import * as PgliteClient from "../../src/Db/PgliteClient.js"
import { origin } from "../support/TestApp.js"
import { freshDatabaseUrl, layerFromUrl, pgliteOptions, usingPostgres } from "../support/TestDatabase.js"

export type Db = SqlClient.SqlClient | Notifications

/**
 * Where app instances find their database: on Postgres, a fresh database that
 * every instance connects to with its own pool; embedded, a data directory
 * (one PGlite at a time can open it, so a restart closes and reopens it).
 */
export const databaseLocation = Effect.gen(function*() {
  if (usingPostgres()) {
    return { _tag: "Postgres", url: yield* freshDatabaseUrl.pipe(Effect.provide(Reactivity.layer)) } as const
  }
  const dir = mkdtempSync(path.join(tmpdir(), "pts-restart-"))
  yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dir, { recursive: true, force: true })))
  return { _tag: "Pglite", dir } as const
})
export type Location = Effect.Effect.Success<typeof databaseLocation>

export const databaseLayer = (location: Location): Layer.Layer<Db> =>
  (location._tag === "Postgres"
    ? layerFromUrl(location.url).pipe(Layer.provide(Reactivity.layer))
    // The first open loads the migrated template into the directory (no initdb); a reopen finds it.
    : Layer.unwrapEffect(Effect.sync(() => {
      const dataDir = path.join(location.dir, "pg")
      return PgliteClient.layer(dataDir, undefined, pgliteOptions(dataDir))
    })).pipe(Layer.tap((ctx) => migrate.pipe(Effect.provide(ctx))))).pipe(
      Layer.orDie
    )

/** One app instance (HTTP server and background fibers) on the given database context. */
export const appLayer = (db: Context.Context<Db>) =>
  layerHttp.pipe(
    Layer.provideMerge(NodeHttpServer.layerTest),
    Layer.provideMerge(Layer.succeedContext(db)),
    Layer.provideMerge(configWith({ publicUrl: origin })),
    Layer.orDie
  )

/** Starts an instance in its own scope, so a test can stop it (a restart) while the test goes on. */
export const startInstance = (db: Context.Context<Db>) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const context = yield* Layer.buildWithScope(appLayer(db), scope)
    return { context, stop: Scope.close(scope, Exit.void) }
  })

/** A database context in its own scope (closed on restart, like a process exit). */
export const openDatabase = (location: Location) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const context = yield* Layer.buildWithScope(databaseLayer(location), scope)
    return { context, close: Scope.close(scope, Exit.void) }
  })
