import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"

/**
 * Vitest global setup: the tests import the sources, but a few run what the
 * package ships (the `pipeline-worker` bin, `npm start`, the package self-import
 * `pipeline-trigger-service`), which is the build in dist/. Rebuild it before
 * the tests when a source changed since the last build, so a test never runs
 * yesterday's JavaScript. A build costs tens of seconds of CPU on a busy 2-core
 * machine, so it runs only when both say so: a source is newer than the build
 * (dist/.tsbuildinfo, also written by `npm ci`'s prepare and `npm run build`),
 * and the sources' content differs from that of the last build seen here (a
 * hash in node_modules/.cache: a checkout, stash or rebase that rewrites files
 * with the same content changes their times only). Unchanged, this costs a
 * directory walk and reading src/.
 */
const root = path.resolve(import.meta.dirname, "../..")
const buildInfo = path.join(root, "dist", ".tsbuildinfo")
const hashFile = path.join(root, "node_modules", ".cache", "pts-test", "built-sources.sha256")
const inputs = () => [path.join(root, "src"), path.join(root, "tsconfig.json"), path.join(root, "tsconfig.build.json")]

const files = (entry: string): Array<string> =>
  fs.statSync(entry).isDirectory()
    ? fs.readdirSync(entry).sort().flatMap((name) => files(path.join(entry, name)))
    : [entry]

const newestMtime = (entry: string): number => {
  const stat = fs.statSync(entry)
  if (!stat.isDirectory()) return stat.mtimeMs
  let newest = stat.mtimeMs
  for (const name of fs.readdirSync(entry)) newest = Math.max(newest, newestMtime(path.join(entry, name)))
  return newest
}

const sourcesHash = (): string => {
  const hash = createHash("sha256")
  for (const file of inputs().flatMap(files)) hash.update(path.relative(root, file)).update("\0").update(fs.readFileSync(file)).update("\0")
  return hash.digest("hex")
}

const remember = (hash: string) => {
  fs.mkdirSync(path.dirname(hashFile), { recursive: true })
  fs.writeFileSync(hashFile, hash)
}

export const setup = () => {
  const hash = sourcesHash()
  const built = fs.existsSync(buildInfo) ? fs.statSync(buildInfo).mtimeMs : 0
  if (Math.max(...inputs().map(newestMtime)) <= built) return remember(hash)
  if (built > 0 && fs.existsSync(hashFile) && fs.readFileSync(hashFile, "utf8") === hash) return
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
  fs.utimesSync(buildInfo, now, now)
  remember(hash)
}
