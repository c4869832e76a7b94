import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as PgliteClient from "../../src/Db/PgliteClient.js"
import * as SqlMigrations from "../../src/Db/SqlMigrations.js"
import { migrationChecks, recordedByTypeScript } from "./MigrationChecks.js"

/** A temporary folder holding `files`, removed when the test's scope closes. */
const folder = (files: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pts-migrations-"))
      for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text)
      return dir
    }),
    (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
  )

describe("the migration files", () => {
  // Not contiguous: branches are given ids ahead and land in any order (a gap is filled later).
  it.effect("are every .sql file of migrations/, in id order, ids unique from 1", () =>
    Effect.gen(function*() {
      const listed = yield* SqlMigrations.list()
      const onDisk = fs.readdirSync(path.resolve(import.meta.dirname, "../../migrations")).filter((f) => f.endsWith(".sql")).sort()
      expect(listed.map((m) => path.basename(m.file))).toEqual(onDisk)
      const ids = listed.map((m) => m.id)
      expect(ids[0]).toBe(1)
      expect(ids.every((id, i) => i === 0 || id > ids[i - 1]!)).toBe(true)
      expect(yield* SqlMigrations.latestId()).toBe(ids.at(-1))
    }))

  it.effect("keep the ids and names the TypeScript migrations recorded", () =>
    Effect.gen(function*() {
      const listed = yield* SqlMigrations.list()
      expect(listed.slice(0, recordedByTypeScript.length).map((m) => `${String(m.id).padStart(4, "0")}_${m.name}`))
        .toEqual(recordedByTypeScript)
    }))

  it.scoped("are loaded for the Migrator in id order, from any folder", () =>
    Effect.gen(function*() {
      const dir = yield* folder({ "0010_ten.sql": "SELECT 10;", "0002_two.sql": "SELECT 2;", "README.md": "not a migration" })
      const loaded = yield* SqlMigrations.loader(dir)
      expect(loaded.map(([id, name]) => [id, name])).toEqual([[2, "two"], [10, "ten"]])
    }))

  it.scoped("refuse a .sql file not named NNNN_snake_name, which would otherwise never run", () =>
    Effect.gen(function*() {
      const dir = yield* folder({ "0001_one.sql": "SELECT 1;", "12-add-index.sql": "SELECT 2;" })
      const error = yield* Effect.flip(SqlMigrations.list(dir))
      expect(error.message).toContain("12-add-index.sql")
    }))
})

describe("migrations on the embedded database (PGlite)", () => {
  migrationChecks(PgliteClient.layer(undefined))
})
