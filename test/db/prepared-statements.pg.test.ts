import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { layerPg } from "../../src/Db/Database.js"
import { freshDatabaseUrl } from "../support/TestDatabase.js"

/** A client on a fresh database, with or without named prepared statements. */
const withClient = <A, E>(preparedStatements: boolean, f: (sql: SqlClient.SqlClient) => Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const url = yield* freshDatabaseUrl
    const context = yield* Layer.build(layerPg(Redacted.make(url), { preparedStatements }))
    return yield* f(Context.get(context, SqlClient.SqlClient))
  }).pipe(Effect.provide(Reactivity.layer))

/** Names of the statements prepared on the current connection (call inside a transaction to pin it). */
const prepared = (sql: SqlClient.SqlClient) =>
  Effect.map(sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements`, (rows) => rows.map((r) => r.statement))

describe("prepared statements (Postgres)", () => {
  it.scoped("a parameterized statement is prepared once per connection and reused", () =>
    withClient(true, (sql) =>
      sql.withTransaction(Effect.gen(function*() {
        const first = yield* sql<{ n: number }>`SELECT ${41}::int + 1 AS n`
        const second = yield* sql<{ n: number }>`SELECT ${1}::int + 1 AS n`
        expect(first[0]!.n).toBe(42)
        expect(second[0]!.n).toBe(2)
        const statements = yield* prepared(sql)
        // One entry for the text, however often it runs; parameterless text is not prepared.
        expect(statements.filter((s) => s.includes("::int + 1 AS n"))).toHaveLength(1)
        expect(statements.some((s) => s.includes("pg_prepared_statements"))).toBe(false)
      }))))

  it.scoped("prepared again once the connection's age doubles (plans follow the tables' growth), the old one deallocated", () =>
    withClient(true, (sql) =>
      sql.withTransaction(Effect.gen(function*() {
        const names = Effect.map(
          sql<{ name: string; statement: string }>`SELECT name, statement FROM pg_prepared_statements`,
          (rows) => rows.filter((r) => r.statement.includes("::int * 2 AS n")).map((r) => r.name)
        )
        expect(yield* sql<{ n: number }>`SELECT ${4}::int * 2 AS n`).toEqual([{ n: 8 }])
        const young = yield* names
        expect(young).toHaveLength(1)
        expect(young[0]).toMatch(/_0$/)
        // Real time: the connection's age decides (two seconds and more is generation 1).
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 2100)))
        expect(yield* sql<{ n: number }>`SELECT ${5}::int * 2 AS n`).toEqual([{ n: 10 }])
        const older = yield* names
        expect(older).toHaveLength(1)
        expect(older[0]).toMatch(/_1$/)
      }))))

  it.scoped("DATABASE_PREPARED_STATEMENTS=false sends every statement unnamed", () =>
    withClient(false, (sql) =>
      sql.withTransaction(Effect.gen(function*() {
        yield* sql`SELECT ${1}::int AS n`
        expect(yield* prepared(sql)).toEqual([])
      }))))

  it.scoped("a statement whose cached plan a schema change invalidated fails once, then runs unnamed", () =>
    withClient(true, (sql) =>
      sql.withTransaction(Effect.gen(function*() {
        yield* sql`CREATE TABLE t (id int PRIMARY KEY)`
        yield* sql`INSERT INTO t VALUES (1)`
        const read = sql<{ id: number; extra?: number }>`SELECT * FROM t WHERE id = ${1}`
        expect(yield* read).toEqual([{ id: 1 }])
        yield* sql`ALTER TABLE t ADD COLUMN extra int DEFAULT 7`
        const stale = yield* Effect.flip(sql.withTransaction(read))
        expect(String((stale.cause as { code?: string }).code)).toBe("0A000")
        expect(yield* read).toEqual([{ id: 1, extra: 7 }])
      }))))
})
