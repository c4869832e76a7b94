import { PGlite } from "@electric-sql/pglite"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { TestProject } from "vitest/node"
import { migrate } from "../../src/Db/Migrations.js"
import * as PgliteClient from "../../src/Db/PgliteClient.js"

declare module "vitest" {
  export interface ProvidedContext {
    /** A dump (PGlite `dumpDataDir`) of an empty, migrated embedded database; absent on Postgres. */
    pgliteTemplate?: string
  }
}

/**
 * Vitest global setup: one migrated embedded database, dumped to a file that
 * every test database starts from (`TestDatabase`). A new PGlite database runs
 * `initdb`, seconds of CPU each (about three quarters of a file's setup on a
 * busy 2-core machine); loading a dump skips it. The dump is kept in
 * node_modules/.cache, named by a hash of the migrations and of the code that
 * shapes the database, so it is made again only when one of them changes; the
 * tests still run `migrate` on it, which finds nothing to do.
 */
const root = path.resolve(import.meta.dirname, "../..")
const cacheDir = path.join(root, "node_modules", ".cache", "pts-test")

/** What the dump depends on: a change to any of these makes a new one. */
const inputs = (): ReadonlyArray<string> => {
  const migrations = path.join(root, "migrations")
  return [
    ...fs.readdirSync(migrations).sort().map((name) => path.join(migrations, name)),
    ...["PgliteClient.ts", "Migrations.ts", "SqlMigrations.ts", "Schema.ts"].map((name) => path.join(root, "src", "Db", name)),
    path.join(root, "node_modules", "@electric-sql", "pglite", "package.json")
  ]
}

const fingerprint = (): string => {
  const hash = createHash("sha256")
  for (const file of inputs()) hash.update(path.basename(file)).update("\0").update(fs.readFileSync(file)).update("\0")
  return hash.digest("hex").slice(0, 16)
}

/** Migrates a database in a scratch directory with the service's own code, then dumps it. */
const makeDump = async (): Promise<Buffer> => {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "pts-template-"))
  const dataDir = path.join(scratch, "pg")
  try {
    await Effect.runPromise(
      Effect.scoped(Effect.flatMap(Layer.build(PgliteClient.layer(dataDir)), (ctx) => Effect.provide(migrate, ctx)))
    )
    const db = await PGlite.create(dataDir)
    try {
      const dump = await db.dumpDataDir("none")
      return Buffer.from(await dump.arrayBuffer())
    } finally {
      await db.close()
    }
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true })
  }
}

export const templateFile = async (): Promise<string> => {
  const file = path.join(cacheDir, `pglite-${fingerprint()}.tar`)
  if (fs.existsSync(file)) return file
  const dump = await makeDump()
  fs.mkdirSync(cacheDir, { recursive: true })
  // Written aside and renamed: a run beside this one never reads half a file.
  const partial = `${file}.${process.pid}.partial`
  fs.writeFileSync(partial, dump)
  fs.renameSync(partial, file)
  // Older dumps (earlier migrations) are of no further use.
  for (const name of fs.readdirSync(cacheDir)) {
    if (name.startsWith("pglite-") && name.endsWith(".tar") && path.join(cacheDir, name) !== file) {
      fs.rmSync(path.join(cacheDir, name), { force: true })
    }
  }
  return file
}

export const setup = async (project: TestProject) => {
  if ((process.env.DATABASE_URL ?? "").length > 0) return
  project.provide("pgliteTemplate", await templateFile())
}
