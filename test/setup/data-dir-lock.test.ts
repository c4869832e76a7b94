import { describe, expect, it } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { lockFileOf } from "../../src/Db/DataDirLock.js"
import * as PgliteClient from "../../src/Db/PgliteClient.js"
import { request, startService } from "../support/Process.js"
import { pgliteOptions, seedPgliteDir } from "../support/TestDatabase.js"

// One process per embedded data directory (issue 22, item 1).
const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "pts-lock-"))

const selectOne = Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ one: number }>`SELECT 1 AS one`)

describe("the embedded data directory is opened by one process at a time", () => {
  it.live("a second opening is refused while the first holds it; the first keeps working; after release it opens", () =>
    Effect.gen(function*() {
      const dir = path.join(tempDir(), "pg")
      const first = yield* Layer.build(PgliteClient.layer(dir, undefined, pgliteOptions(dir)))
      const second = yield* Effect.exit(Effect.scoped(Layer.build(PgliteClient.layer(dir))))
      expect(Exit.isFailure(second)).toBe(true)
      if (Exit.isFailure(second)) {
        expect(String(second.cause)).toContain(`in use by process ${process.pid}`)
      }
      expect(yield* selectOne.pipe(Effect.provide(first))).toEqual([{ one: 1 }])
      expect(JSON.parse(fs.readFileSync(lockFileOf(dir), "utf8")).pid).toBe(process.pid)
    }).pipe(Effect.scoped), 120_000)

  it.live("the lock is released with the database, and a stale lock (its process gone) is taken over", () =>
    Effect.gen(function*() {
      const dir = path.join(tempDir(), "pg")
      yield* Effect.scoped(Effect.andThen(Layer.build(PgliteClient.layer(dir, undefined, pgliteOptions(dir))), Effect.void))
      expect(fs.existsSync(lockFileOf(dir))).toBe(false)

      // A process that exited without releasing (as after kill -9): its pid is dead.
      const gone = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]).stdout.toString()
      fs.writeFileSync(lockFileOf(dir), JSON.stringify({ pid: Number(gone), host: os.hostname(), startedAt: "earlier" }))
      const rows = yield* Effect.scoped(Effect.flatMap(Layer.build(PgliteClient.layer(dir)), (ctx) => Effect.provide(selectOne, ctx)))
      expect(rows).toEqual([{ one: 1 }])
    }), 120_000)

  it.live("two `npm start`s on one DATA_DIR: the second is refused naming the holder, the first is unharmed; after kill -9 it starts again", () =>
    Effect.promise(async () => {
      const dataDir = tempDir()
      // Made and migrated beforehand (what is tested is the lock, not a first start).
      await seedPgliteDir(path.join(dataDir, "pg"))
      const env = { DATA_DIR: dataDir, DATABASE_URL: "" }
      const first = await startService(env, { readyTimeoutMs: 110_000 })
      try {
        const created = await request(first.url, "POST", "/api/v1/auth/register", {
          body: { email: "first@example.com", password: "a-long-password" }
        })
        expect(created.status).toBe(201)

        const refused = await startService(env, { readyTimeoutMs: 110_000 }).then(
          (second) => {
            second.kill("SIGKILL")
            return "started"
          },
          (error: Error) => error.message
        )
        expect(refused).toContain(`is in use by process ${first.pid}`)
        expect(refused).toContain("pipeline-trigger-service stopped:")

        expect((await request(first.url, "GET", "/api/v1/health")).status).toBe(200)
        const again = await request(first.url, "POST", "/api/v1/auth/login", {
          body: { email: "first@example.com", password: "a-long-password" }
        })
        expect(again.status).toBe(200)
      } finally {
        first.kill("SIGKILL")
        await first.exited
      }
      // The crash left the lock file behind: the next start sees its process is gone.
      expect(fs.existsSync(path.join(dataDir, "pg.lock"))).toBe(true)
      const restarted = await startService(env, { readyTimeoutMs: 110_000 })
      try {
        const login = await request(restarted.url, "POST", "/api/v1/auth/login", {
          body: { email: "first@example.com", password: "a-long-password" }
        })
        expect(login.status).toBe(200)
      } finally {
        await restarted.stop()
      }
    }), 360_000)
})
