import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as DataDir from "./DataDir.js"

/**
 * The embedded database is one Postgres data directory written by one
 * process: a second process opening it would keep its own copy in memory and
 * overwrite the first one's writes on close. So the directory is locked: a
 * lock file created exclusively (O_EXCL) holding the owner's pid, host and
 * process start time. A lock whose process is gone (a crash, kill -9) is
 * stale and taken over; the start time tells a reused pid from the owner.
 */
export class DataDirInUse extends Data.TaggedError("DataDirInUse")<{
  readonly message: string
  readonly dataDir: string
  readonly pid: number
}> {}

interface Holder {
  readonly pid: number
  readonly host: string
  readonly startedAt: string
  /** Linux: the process start time in clock ticks since boot (field 22 of /proc/<pid>/stat). */
  readonly startTicks?: string | undefined
}

/** `<dir>.lock` beside the directory: Postgres owns the inside of its data directory. */
export const lockFileOf = (dataDir: string) => `${path.resolve(dataDir)}.lock`

const startTicks = (pid: number): string | undefined => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    // The command name (field 2) may contain spaces and parentheses: count after its closing one.
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]
  } catch {
    return undefined
  }
}

const alive = (holder: Holder): boolean => {
  if (holder.host !== os.hostname()) return true // cannot tell: assume it runs
  try {
    process.kill(holder.pid, 0)
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
  const ticks = startTicks(holder.pid)
  return holder.startTicks === undefined || ticks === undefined || ticks === holder.startTicks
}

const readHolder = (file: string): Holder | undefined => {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8")) as Holder
  } catch {
    // Unreadable or half-written (a crash between create and write): nobody holds it.
    return undefined
  }
}

const me = (): Holder => ({
  pid: process.pid,
  host: os.hostname(),
  startedAt: new Date().toISOString(),
  startTicks: startTicks(process.pid)
})

const tryCreate = (file: string, holder: Holder): boolean => {
  try {
    const fd = fs.openSync(file, "wx", 0o600)
    fs.writeSync(fd, JSON.stringify(holder))
    fs.closeSync(fd)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false
    throw error
  }
}

const acquire = (dataDir: string): Effect.Effect<string, DataDirInUse> =>
  Effect.suspend(() => {
    const file = lockFileOf(dataDir)
    DataDir.makeDirectory(path.dirname(file))
    const holder = me()
    for (let attempt = 0; attempt < 3; attempt++) {
      if (tryCreate(file, holder)) return Effect.succeed(file)
      const current = readHolder(file)
      if (current !== undefined && alive(current)) {
        const where = current.host === os.hostname() ? "" : ` on host ${current.host}`
        return Effect.fail(
          new DataDirInUse({
            dataDir,
            pid: current.pid,
            message: `the data directory ${path.resolve(dataDir)} is in use by process ${current.pid}${where} ` +
              `(started ${current.startedAt}). One process at a time may open an embedded database: stop that ` +
              `process, or give this one another DATA_DIR (or DATABASE_URL for several instances on one database).`
          })
        )
      }
      // Stale: its process is gone. Remove it and try again (another starter may win the race).
      try {
        fs.unlinkSync(file)
      } catch {
        // someone else removed it first
      }
    }
    return Effect.die(new Error(`could not take the lock ${file}`))
  })

const release = (file: string) =>
  Effect.sync(() => {
    // Only our own lock: never remove one a successor took after a forced takeover.
    if (readHolder(file)?.pid === process.pid) fs.rmSync(file, { force: true })
  })

/** Holds the lock on `dataDir` for the scope's lifetime. */
export const hold = (dataDir: string): Effect.Effect<void, DataDirInUse, import("effect/Scope").Scope> =>
  Effect.asVoid(Effect.acquireRelease(acquire(dataDir), release))
