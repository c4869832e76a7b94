import type * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Settings from "../Config/Settings.js"

/**
 * `mkdir -p`, one level at a time. Node's own recursive mkdir never returns
 * for some paths (under /proc it loops on ENOENT at full CPU, and the sync
 * form blocks the event loop, signals included): this one fails with the
 * first level that cannot be made. Throws the file system's error.
 */
export const makeDirectory = (dir: string): void => {
  const missing: Array<string> = []
  for (let current = path.resolve(dir);;) {
    try {
      if (fs.statSync(current).isDirectory()) break
      throw Object.assign(new Error(`${current} is a file, not a directory`), { code: "ENOTDIR" })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error
      missing.push(current)
      const parent = path.dirname(current)
      if (parent === current) break
      current = parent
    }
  }
  for (const level of missing.reverse()) {
    try {
      fs.mkdirSync(level)
    } catch (error) {
      // Another process made it meanwhile.
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
    }
  }
}

const reasonOf = (error: unknown): string => error instanceof Error ? error.message : String(error)

/**
 * `DATA_DIR` made (if missing) and proven writable, before anything is
 * written there: the embedded database, the development keys, and the lock
 * file beside it (`<DATA_DIR>.lock`, so its parent must be writable too).
 * A directory that cannot serve fails the start at once, naming the
 * variable, its value and the file system's reason.
 */
export const check = (dataDir: string): Effect.Effect<void, ConfigError.ConfigError> =>
  Effect.try({
    try: () => {
      makeDirectory(dataDir)
      const probe = path.join(dataDir, `.write-check-${process.pid}`)
      fs.writeFileSync(probe, "")
      fs.rmSync(probe, { force: true })
      fs.accessSync(path.dirname(path.resolve(dataDir)), fs.constants.W_OK)
    },
    catch: (error) =>
      Settings.invalid(
        "DATA_DIR",
        dataDir,
        `a directory this process can create and write, whose parent it can write too (for the lock file); here: ${reasonOf(error)}`
      )
  })
