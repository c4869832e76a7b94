import * as PgClient from "@effect/sql-pg/PgClient"
import * as Reactivity from "@effect/experimental/Reactivity"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"

/** Creates a fresh database on the server of `baseUrl` and answers its URL. */
export const createDatabase = (baseUrl: string, name: string): Promise<string> =>
  Effect.gen(function*() {
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

/** Runs one query on the database at `url` and answers its rows. */
export const query = <A = Record<string, unknown>>(url: string, text: string, params: ReadonlyArray<unknown> = []): Promise<ReadonlyArray<A>> =>
  Effect.gen(function*() {
    const client = yield* PgClient.make({ url: Redacted.make(url), maxConnections: 1 })
    return (yield* client.unsafe(text, params as Array<any>)) as unknown as ReadonlyArray<A>
  }).pipe(Effect.scoped, Effect.provide(Reactivity.layer), Effect.runPromise)
