import { PGlite } from "@electric-sql/pglite"
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"

/**
 * What keeps the embedded database's resident memory small (docs/benchmarks.md,
 * "Idle memory of the embedded database").
 *
 * Postgres's shared buffers live inside PGlite's WebAssembly memory and are
 * all touched when it starts: the default 128 MB was 120 MB of resident memory
 * on an idle service. The embedded database reads its pages from the
 * operating system's file cache, so a miss in a smaller pool costs a copy,
 * not a disk read.
 */
export const sharedBuffers = "32MB"

/** PGlite's own start parameters plus ours: a `-c` given here wins over postgresql.conf. */
export const startParams: ReadonlyArray<string> = [...PGlite.defaultStartParams, "-c", `shared_buffers=${sharedBuffers}`]

// The child's whole program: create the database in `dir`, close it, exit.
const initScript = `
const [pglite, dir, params] = process.argv.slice(1)
require(pglite).PGlite.create(dir, { startParams: JSON.parse(params) })
  .then((db) => db.close())
  .then(() => process.exit(0), (error) => {
    process.stderr.write(String((error && error.stack) || error))
    process.exit(1)
  })
`

/**
 * Creates a new data directory in a child process when `dataDir` holds no
 * database yet; nothing when it does.
 *
 * PGlite creates a database with a second, temporary Postgres instance and
 * initdb, each with its own WebAssembly memory, and a copy of the new
 * directory as a tarball. All of it is garbage afterwards, but an idle
 * service's JavaScript heap hardly grows, so no full garbage collection runs
 * and nothing is returned: a fresh start idled at 900 MB, a restart at 420.
 * In a child, all of it goes back to the system when the child exits, and the
 * service opens the directory as it would on a restart. Where the child
 * cannot do it (no child process, a runtime whose executable is not Node),
 * PGlite creates it in this process as before.
 */
export const initInChild = (dataDir: string): Effect.Effect<void> =>
  Effect.suspend(() => {
    if (fs.existsSync(path.join(dataDir, "PG_VERSION"))) return Effect.void
    const pglite = createRequire(import.meta.url).resolve("@electric-sql/pglite")
    // Resolves with undefined when the child made the database, else with why not.
    return Effect.async<string | undefined>((resume) => {
      const child = spawn(process.execPath, ["-e", initScript, pglite, dataDir, JSON.stringify(startParams)], {
        stdio: ["ignore", "ignore", "pipe"]
      })
      let stderr = ""
      child.stderr.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString("utf8")).slice(-2000)))
      child.once("error", (error) => resume(Effect.succeed(error.message)))
      child.once("exit", (code, signal) =>
        resume(Effect.succeed(code === 0 ? undefined : stderr.trim().split("\n")[0] || `exit ${code ?? signal}`)))
      // Interrupted (a signal during start-up): the child goes too.
      return Effect.sync(() => child.kill("SIGKILL"))
    }).pipe(
      // Only a saving, never a new way to fail: PGlite then creates it here, and reports its own error if any.
      Effect.flatMap((failure) =>
        failure === undefined ? Effect.void : Effect.logWarning("could not create the embedded database in a child process; creating it in this one").pipe(
          Effect.annotateLogs({ reason: failure })
        ))
    )
  })
