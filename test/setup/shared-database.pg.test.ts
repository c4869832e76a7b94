import * as Reactivity from "@effect/experimental/Reactivity"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { describe, expect, it } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import { createServer } from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { main } from "../../examples/embed.js"
import { layerPg } from "../../src/Db/Database.js"
import { migrate } from "../../src/Db/Migrations.js"
import { PipelineTriggers } from "../../src/index.js"
import { createDatabase, request, startService, type TestDatabase } from "../support/Process.js"

// A shared Postgres database (issue 22, items 2 and 3): keys that every instance
// shares, and tables in our own schema beside the host's.

const keys = () => ({ JWT_SECRET: randomBytes(48).toString("base64"), SECRETS_KEY: randomBytes(32).toString("base64") })

const withDatabase = <A>(f: (db: TestDatabase) => Promise<A>) =>
  Effect.promise(async () => {
    const db = await createDatabase()
    try {
      return await f(db)
    } finally {
      await db.drop()
    }
  })

const refusal = (env: Record<string, string>) =>
  startService(env, { readyTimeoutMs: 60_000 }).then(
    async (service) => {
      await service.stop()
      return "started"
    },
    (error: Error) => error.message
  )

/** A plain host client on the database: no search_path of ours. */
const hostClient = (url: string) => PgClient.layer({ url: Redacted.make(url), maxConnections: 4 })

describe("a shared database", () => {
  it.live("DATABASE_URL without JWT_SECRET and SECRETS_KEY is refused with the reason", () =>
    withDatabase(async (db) => {
      const message = await refusal({ DATABASE_URL: db.url, JWT_SECRET: "", SECRETS_KEY: "" })
      expect(message).toContain("DATABASE_URL requires JWT_SECRET and SECRETS_KEY")
    }), 120_000)

  it.live("a second instance with other keys is refused; with the same keys a session made on one works on the other", () =>
    withDatabase(async (db) => {
      const shared = keys()
      const a = await startService({ DATABASE_URL: db.url, ...shared })
      try {
        expect(await refusal({ DATABASE_URL: db.url, ...shared, SECRETS_KEY: keys().SECRETS_KEY })).toContain(
          "SECRETS_KEY differs from the key the other instances on this database use"
        )
        expect(await refusal({ DATABASE_URL: db.url, ...shared, JWT_SECRET: keys().JWT_SECRET })).toContain(
          "JWT_SECRET differs from the one the other instances on this database use"
        )
        const b = await startService({ DATABASE_URL: db.url, ...shared })
        try {
          const reg = await fetch(`${a.url}/api/v1/auth/register`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ email: "shared@example.com", password: "a-long-password" })
          })
          expect(reg.status).toBe(201)
          const cookie = reg.headers.get("set-cookie")!.split(";")[0]!
          expect((await request(b.url, "GET", "/api/v1/auth/me", { headers: { cookie } })).status).toBe(200)
        } finally {
          await b.stop()
        }
        // A rotation: the new key with the old one kept for opening is accepted.
        const rotated = await startService({
          DATABASE_URL: db.url,
          JWT_SECRET: shared.JWT_SECRET,
          SECRETS_KEY: keys().SECRETS_KEY,
          SECRETS_KEY_PREVIOUS: shared.SECRETS_KEY
        })
        await rotated.stop()
      } finally {
        await a.stop()
      }
    }), 240_000)

  it.live("the host already has `users`: the service starts, its tables are in pipeline_triggers, the host's are untouched", () =>
    withDatabase(async (db) => {
      await db.query("CREATE TABLE public.users (id int PRIMARY KEY, name text); INSERT INTO public.users VALUES (1, 'host')")
      const service = await startService({ DATABASE_URL: db.url, ...keys() })
      try {
        const reg = await request(service.url, "POST", "/api/v1/auth/register", {
          body: { email: "schema@example.com", password: "a-long-password" }
        })
        expect(reg.status).toBe(201)
      } finally {
        await service.stop()
      }
      expect(await db.query("SELECT id, name FROM public.users")).toEqual([{ id: 1, name: "host" }])
      const ours = await db.query<{ table_name: string }>(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'pipeline_triggers' ORDER BY 1"
      )
      expect(ours.map((t) => t.table_name)).toEqual(expect.arrayContaining(["pts_migrations", "users", "runs", "triggers"]))
      expect(await db.query("SELECT email FROM pipeline_triggers.users")).toEqual([{ email: "schema@example.com" }])
    }), 120_000)

  it.live("a failed migration is refused with a readable reason naming the database's complaint", () =>
    withDatabase(async (db) => {
      // Someone else's table squats our schema: the first migration cannot create ours.
      await db.query("CREATE SCHEMA pipeline_triggers; CREATE TABLE pipeline_triggers.users (id int)")
      const message = await refusal({ DATABASE_URL: db.url, ...keys() })
      expect(message).toContain("pipeline-trigger-service stopped:")
      expect(message).toMatch(/relation "users" already exists/)
    }), 120_000)

  it.live("an installation from before the schema (tables in public) is moved into it with its data", () =>
    withDatabase(async (db) => {
      // What older releases did: migrate straight into public.
      await Effect.runPromise(
        Effect.gen(function*() {
          const ctx = yield* Layer.build(layerPg(Redacted.make(db.url), { schema: "public" }))
          yield* migrate.pipe(Effect.provide(ctx))
          const sql = SqlClient.SqlClient
          yield* Effect.flatMap(sql, (s) => s`INSERT INTO users (id, email, password_hash) VALUES (gen_random_uuid(), 'old@example.com', 'x')`)
            .pipe(Effect.provide(ctx))
        }).pipe(Effect.scoped, Effect.provide(Reactivity.layer))
      )
      const service = await startService({ DATABASE_URL: db.url, ...keys() })
      await service.stop()
      expect(await db.query("SELECT email FROM pipeline_triggers.users")).toEqual([{ email: "old@example.com" }])
      expect(await db.query("SELECT to_regclass('public.users') AS t")).toEqual([{ t: null }])
    }), 120_000)

  it.live("embedded on the host's own SqlClient beside a host `users` table: our tables in our schema, the host's client unchanged", () =>
    withDatabase(async (db) => {
      await db.query("CREATE TABLE public.users (id int PRIMARY KEY, name text); INSERT INTO public.users VALUES (1, 'host')")
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pts-host-"))
      await Effect.runPromise(
        Effect.gen(function*() {
          const ended = yield* main
          expect(ended).toMatchObject({ status: "succeeded" })
          // The host's client still sees its own table first.
          const sql = yield* SqlClient.SqlClient
          expect(yield* sql`SELECT name FROM users`).toEqual([{ name: "host" }])
          expect(yield* sql`SHOW search_path`).toEqual([{ search_path: "\"$user\", public" }])
        }).pipe(
          Effect.provide(
            PipelineTriggers.layerHttp.pipe(
              Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
              Layer.provideMerge(PipelineTriggers.layerWith({ dataDir: dir, ...keyOptions() })),
              Layer.provideMerge(hostClient(db.url))
            )
          ),
          Effect.scoped,
          Effect.provide(Reactivity.layer)
        )
      )
      expect(await db.query("SELECT count(*)::int AS n FROM pipeline_triggers.runs")).toEqual([{ n: 1 }])
    }), 120_000)
})

const keyOptions = () => ({
  jwtSecret: Option.some(Redacted.make(randomBytes(48).toString("base64"))),
  secretsKey: Option.some(Redacted.make(randomBytes(32).toString("base64")))
})
