import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

/**
 * The schema as plain SQL files in the package's top-level `migrations/`
 * folder, so a DBA can read them and other tools can run them. This module
 * is `src/Db/` in the repository and `dist/Db/` in the build and in an
 * installed package; the folder is two levels up from either.
 */
export const directory = fileURLToPath(new URL("../../migrations/", import.meta.url))

/** `NNNN_snake_name.sql`: the id orders the files, the name is recorded in `pts_migrations`. */
const fileName = /^(\d{4})_([a-z0-9_]+)\.sql$/

export interface SqlMigration {
  readonly id: number
  readonly name: string
  readonly file: string
}

const failed = (message: string, cause?: unknown) =>
  new Migrator.MigrationError({ reason: "import-error", message, cause })

/**
 * Every `.sql` file of `dir`, by id. A `.sql` file not named `NNNN_snake_name`
 * fails the listing rather than being skipped: left out, it would never run.
 */
export const list = (dir: string = directory): Effect.Effect<ReadonlyArray<SqlMigration>, Migrator.MigrationError> =>
  Effect.tryPromise({
    try: () => fs.promises.readdir(dir),
    catch: (cause) => failed(`Could not list the migrations in ${dir}`, cause)
  }).pipe(
    Effect.flatMap((names) =>
      Effect.forEach(names.filter((name) => name.endsWith(".sql")), (name) => {
        const match = fileName.exec(name)
        return match === null
          ? Effect.fail(failed(`Migration file ${name} in ${dir} is not named NNNN_snake_name.sql`))
          : Effect.succeed({ id: Number(match[1]), name: match[2]!, file: path.join(dir, name) })
      })
    ),
    Effect.map((migrations) => [...migrations].sort((a, b) => a.id - b.id || a.name.localeCompare(b.name)))
  )

/**
 * One file's text as one `unsafe` statement without parameters: both clients
 * then use Postgres' simple-query protocol, which takes several statements in
 * one message (node-postgres sends text without values that way; the PGlite
 * client runs it with `exec`). The Migrator runs it inside its transaction.
 */
export const statement = (file: string) =>
  Effect.tryPromise({
    try: () => fs.promises.readFile(file, "utf8"),
    catch: (cause) => failed(`Could not read ${file}`, cause)
  }).pipe(
    Effect.map((text) => Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(text)))
  )

/** A `Migrator` loader over `dir`; a file is read only when its migration is due. */
export const loader = (dir: string = directory): Migrator.Loader =>
  Effect.map(list(dir), (migrations) => migrations.map(({ file, id, name }) => [id, name, statement(file)] as const))

/** The newest id in `dir`: a database whose `pts_migrations` lacks it is behind this package. */
export const latestId = (dir: string = directory): Effect.Effect<number, Migrator.MigrationError> =>
  Effect.map(list(dir), (migrations) => migrations.at(-1)?.id ?? 0)
