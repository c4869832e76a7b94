import * as PgClient from "@effect/sql-pg/PgClient"
import * as Reactivity from "@effect/experimental/Reactivity"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"

/**
 * Creates (afresh) the database `base` on the server of `baseUrl` and answers its URL. BENCH_DB_SUFFIX is appended to
 * every name, so two benches on one server (two checkouts) never drop each
 * other's databases.
 */
export const createDatabase = (baseUrl: string, base: string): Promise<string> =>
  Effect.gen(function*() {
    const name = `${base}${(process.env.BENCH_DB_SUFFIX ?? "").replace(/[^a-z0-9_]/gi, "")}`
    const admin = yield* PgClient.make({ url: Redacted.make(baseUrl), maxConnections: 1 })
    yield* admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    yield* admin.unsafe(`CREATE DATABASE ${name}`)
    const version = yield* admin<{ server_version: string }>`SHOW server_version`
    const url = new URL(baseUrl)
    url.pathname = `/${name}`
    return { url: url.toString(), version: version[0]!.server_version }
  }).pipe(Effect.scoped, Effect.provide(Reactivity.layer), Effect.runPromise).then((r) => {
    serverVersion = r.version
    return r.url
  })

export let serverVersion = "unknown"

/** Runs one statement on the database at `url` (for seeding a scenario). */
export const execute = (url: string, text: string, params: ReadonlyArray<unknown> = []): Promise<void> =>
  Effect.gen(function*() {
    const client = yield* PgClient.make({ url: Redacted.make(url), maxConnections: 1 })
    // The service keeps its tables in its own schema (DATABASE_SCHEMA, default pipeline_triggers).
    yield* client.unsafe("SET search_path TO pipeline_triggers, public")
    yield* client.unsafe(text, params as Array<any>)
  }).pipe(Effect.scoped, Effect.provide(Reactivity.layer), Effect.runPromise)

/** Runs one query on the database at `url` and answers its rows (the service's schema first, as `execute`). */
export const query = <A = Record<string, unknown>>(url: string, text: string, params: ReadonlyArray<unknown> = []): Promise<ReadonlyArray<A>> =>
  Effect.gen(function*() {
    const client = yield* PgClient.make({ url: Redacted.make(url), maxConnections: 1 })
    yield* client.unsafe("SET search_path TO pipeline_triggers, public")
    return (yield* client.unsafe(text, params as Array<any>)) as unknown as ReadonlyArray<A>
  }).pipe(Effect.scoped, Effect.provide(Reactivity.layer), Effect.runPromise)
