import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"

/**
 * Vitest global setup: the tests import the sources, but a few run what the
 * package ships (the `pipeline-worker` bin, `npm start`, the package self-import
 * `pipeline-trigger-service`), which is the build in dist/. Rebuild it before
 * the tests when a source is newer than the last build, so a test never runs
 * yesterday's JavaScript; when nothing changed this costs a directory walk.
 */
const root = path.resolve(import.meta.dirname, "../..")
const stamp = path.join(root, "dist", ".tsbuildinfo")

const newestMtime = (entry: string): number => {
  const stat = fs.statSync(entry)
  if (!stat.isDirectory()) return stat.mtimeMs
  let newest = stat.mtimeMs
  for (const name of fs.readdirSync(entry)) newest = Math.max(newest, newestMtime(path.join(entry, name)))
  return newest
}

export const setup = () => {
  const built = fs.existsSync(stamp) ? fs.statSync(stamp).mtimeMs : 0
  const sources = Math.max(
    newestMtime(path.join(root, "src")),
    newestMtime(path.join(root, "tsconfig.json")),
    newestMtime(path.join(root, "tsconfig.build.json"))
  )
  if (sources <= built) return
  try {
    execFileSync(process.execPath, [path.join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"], {
      cwd: root,
      stdio: "inherit"
    })
  } catch {
    // tsc emits even with type errors (`tsc --noEmit` is where they are reported);
    // the tests run on what was emitted, and the next run builds again.
    return
  }
  // tsc leaves its build info untouched when no output changed: mark this build as current.
  const now = new Date()
  fs.utimesSync(stamp, now, now)
}
