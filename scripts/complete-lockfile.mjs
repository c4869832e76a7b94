// Completes package-lock.json with the platform-specific optional packages the
// lockfile lists as optionalDependencies but has no entry for.
//
// Why: the npm registry mirror on our machines answers 404 for other
// platforms' native packages (@rollup/rollup-darwin-arm64, …), so `npm install`
// leaves them out of the lockfile and `npm ci` then refuses the lockfile as out
// of sync. Each entry added here carries its os/cpu (and libc), so npm skips it
// on every other platform without fetching it, and fetches it by name and
// version on the platform it is for.
//
// Run after regenerating the lockfile on such a machine:  node scripts/complete-lockfile.mjs
import { readFileSync, writeFileSync } from "node:fs"

const path = new URL("../package-lock.json", import.meta.url)
const lock = JSON.parse(readFileSync(path, "utf8"))
const packages = lock.packages

const platformOf = (name) => {
  const base = name.split("/").pop().replace(/^(rollup|msgpackr-extract)-/, "")
  const [os, cpu, variant] = base.split("-")
  const libc = os === "linux" && variant !== undefined
    ? (variant.startsWith("musl") ? ["musl"] : variant.startsWith("gnu") ? ["glibc"] : undefined)
    : undefined
  return { os: [os], cpu: [cpu], ...(libc ? { libc } : {}) }
}

let added = 0
for (const [key, entry] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    if (packages[`node_modules/${name}`] !== undefined) continue
    if (!/^@(rollup|msgpackr-extract|esbuild)\//.test(name)) continue
    packages[`node_modules/${name}`] = {
      version,
      ...(entry.dev ? { dev: true } : {}),
      optional: true,
      ...platformOf(name)
    }
    added++
  }
}
const sorted = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a.localeCompare(b))))
lock.packages = sorted
writeFileSync(path, JSON.stringify(lock, null, 2) + "\n")
console.log(`package-lock.json: ${added} platform entries added`)
