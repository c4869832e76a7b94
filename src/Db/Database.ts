import * as SqlClient from "@effect/sql/SqlClient"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as path from "node:path"
import { AppConfig } from "../Config/AppConfig.js"
import { Notifications } from "./Notifications.js"
import * as PgliteClient from "./PgliteClient.js"
import { migrate } from "./Migrations.js"

/** A real Postgres server through `@effect/sql-pg`, plus LISTEN/NOTIFY. */
export const layerPg = (url: import("effect/Redacted").Redacted) =>
  Layer.effect(
    Notifications,
    Effect.map(PgClient.PgClient, (pg) => Notifications.of({ listen: pg.listen, notify: pg.notify }))
  ).pipe(
    Layer.provideMerge(PgClient.layer({
      url,
      maxConnections: 20,
      connectTimeout: Duration.seconds(5),
      idleTimeout: Duration.seconds(30),
      applicationName: "pipeline-trigger-service"
    }))
  )

/**
 * The database the configuration names: `DATABASE_URL` when set, otherwise an
 * embedded Postgres persisted under `DATA_DIR/pg`. Migrations run on both.
 */
export const layer: Layer.Layer<SqlClient.SqlClient | Notifications, unknown, AppConfig> = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) =>
    Option.match(config.databaseUrl, {
      onNone: () => PgliteClient.layer(path.join(config.dataDir, "pg")),
      onSome: (url) => layerPg(url)
    }))
).pipe(Layer.tap((ctx) => migrate.pipe(Effect.provide(ctx))))

