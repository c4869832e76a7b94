import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Stream from "effect/Stream"
import * as path from "node:path"
import * as App from "../App.js"
import { migrate } from "../Db/Migrations.js"
import { Notifications } from "../Db/Notifications.js"
import * as PgliteClient from "../Db/PgliteClient.js"
import * as Schema from "../Db/Schema.js"
import { ConfigFromEmbedding, layerConfig, PipelineTriggersConfig, type PipelineTriggersOptions } from "./EmbedConfig.js"
import { PipelineTriggers } from "./PipelineTriggers.js"

/**
 * Single-instance LISTEN/NOTIFY for a host `SqlClient` that is not `@effect/sql-pg`:
 * wakeups reach this process only, which is all one instance needs.
 */
const localNotifications = Effect.map(PubSub.unbounded<{ channel: string; payload: string }>(), (hub) =>
  Notifications.of({
    listen: (channel) => Stream.fromPubSub(hub).pipe(Stream.filter((m) => m.channel === channel), Stream.map((m) => m.payload)),
    notify: (channel, payload) => Effect.asVoid(PubSub.publish(hub, { channel, payload }))
  }))

/** LISTEN/NOTIFY through the host's `PgClient` when it is one (several instances), else in-process. */
const NotificationsFromHost: Layer.Layer<Notifications> = Layer.effect(
  Notifications,
  Effect.flatMap(Effect.serviceOption(PgClient.PgClient), (pg) =>
    Option.match(pg, {
      onNone: () => localNotifications,
      onSome: (client) =>
        Effect.succeed(Notifications.of({
          listen: client.listen,
          // `client.notify` sends `NOTIFY channel, $1`, which Postgres cannot take with a parameter.
          notify: (channel, payload) => Effect.asVoid(client`SELECT pg_notify(${channel}, ${payload})`)
        }))
    }))
)

/** Every service `layer` gives: `PipelineTriggers` plus the domain and scheduler services behind it. */
export type Services = Layer.Layer.Success<typeof core>

const core = PipelineTriggers.Default.pipe(
  // The same layer values App.ts composes into `layerHttp`: built together with it,
  // they are shared (one scheduler, one terminal-run stream), not duplicated.
  Layer.provideMerge(App.layerBackground),
  Layer.provideMerge(App.layerServices),
  Layer.provideMerge(ConfigFromEmbedding)
)

/** Migrations first, then the services: the scheduler reads its tables as it starts. */
const migrated = <A, E, R>(layer: Layer.Layer<A, E, R>) =>
  Layer.unwrapEffect(Effect.as(Effect.orDie(migrate), layer))

/**
 * The `SqlClient` our services use, kept under its own tag: on the host's
 * database it sees our schema first, and handing it out as the host's
 * `SqlClient` would make the host's own queries see our tables first too.
 * `layerHttp` reads it from here.
 */
export class ServiceSql extends Context.Tag("PipelineTriggers/ServiceSql")<ServiceSql, SqlClient.SqlClient>() {}

/** The host's `SqlClient`, seen through our schema (created on first use). */
const ClientInOurSchema: Layer.Layer<SqlClient.SqlClient | ServiceSql, SqlError, SqlClient.SqlClient | PipelineTriggersConfig> =
  Layer.effectContext(
    Effect.gen(function*() {
      const host = yield* SqlClient.SqlClient
      const { schema } = yield* PipelineTriggersConfig
      const client = yield* Schema.onHostClient(host, schema)
      yield* Schema.prepare(schema).pipe(Effect.provideService(SqlClient.SqlClient, client))
      return Context.make(SqlClient.SqlClient, client).pipe(Context.add(ServiceSql, client))
    })
  )

/**
 * The scheduler on the host's own `SqlClient` (a Postgres database) with the
 * config from `PipelineTriggersConfig`. Every table, and the `pts_migrations`
 * bookkeeping, lives in the configured schema (default `pipeline_triggers`).
 * Also outputs `AppConfig`, `Tuning` and `Notifications`, so `App.layerHttp` can be mounted
 * on the same instance.
 */
export const layer = migrated(core).pipe(
  Layer.merge(Layer.effect(ServiceSql, SqlClient.SqlClient)),
  Layer.provide(ClientInOurSchema),
  Layer.provideMerge(NotificationsFromHost)
)

/** `layer` with `PipelineTriggersConfig.defaults` overridden by `options`. */
export const layerWith = (options: PipelineTriggersOptions = {}) => layer.pipe(Layer.provideMerge(layerConfig(options)))

/**
 * The scheduler on its own embedded Postgres (PGlite) in `<dataDir>/pg`, or in
 * memory with `inMemory: true`. Outputs the `SqlClient` too.
 */
export const layerEmbedded = (options: PipelineTriggersOptions & { readonly inMemory?: boolean } = {}) => {
  const { inMemory, ...rest } = options
  const config = { ...PipelineTriggersConfig.defaults, ...rest }
  return migrated(core).pipe(
    Layer.merge(Layer.effect(ServiceSql, SqlClient.SqlClient)),
    Layer.provideMerge(
      PgliteClient.layer(inMemory === true ? undefined : path.join(config.dataDir, "pg"), Schema.validate(config.schema))
    ),
    Layer.provideMerge(layerConfig(config))
  )
}

/**
 * The HTTP API (every endpoint, the OpenAPI document, `/docs`) for the host's
 * `HttpServer`; provide it with one of the layers above, e.g.
 * `PipelineTriggers.layerHttp.pipe(Layer.provide(NodeHttpServer.layer(...)), Layer.provideMerge(layerEmbedded()))`.
 */
export const layerHttp = App.layerHttp.pipe(Layer.provide(Layer.effect(SqlClient.SqlClient, ServiceSql)))
