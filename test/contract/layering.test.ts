import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { resolveRelative, specifiersOf } from "./ImportGraph.js"

/**
 * The run engine's dependencies point one way, folder by folder: the run
 * record (`Domain/`) ← the run store (`RunStore/`) ← the engine
 * (`Scheduler/`) ← the features over it. Walks every import (type imports
 * too: a type pointing back is the same tangle) from each folder's files,
 * transitively, and fails on any file reached in a folder above it.
 */
const src = path.resolve(import.meta.dirname, "../../src")

/** The features over the engine: none of them may be reached from below. */
const features = ["Runs", "WorkerProtocol", "WorkerChannel", "Mcp", "Embed", "Triggers", "Http", "Web", "Dashboard", "Processes"]

const layers: ReadonlyArray<{ readonly folder: string; readonly above: ReadonlyArray<string> }> = [
  { folder: "Domain", above: ["RunStore", "Scheduler", "Webhooks", ...features] },
  { folder: "RunStore", above: ["Scheduler", "Webhooks", ...features] },
  { folder: "Scheduler", above: ["Webhooks", ...features] }
]

/** The files one file imports or re-exports, type-only imports included. */
const imports = (file: string): ReadonlyArray<string> =>
  specifiersOf(file, { types: true }).filter((s) => s.startsWith(".")).map((s) => resolveRelative(file, s))

const filesUnder = (dir: string): ReadonlyArray<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(path.join(dir, entry.name)) : entry.name.endsWith(".ts") ? [path.join(dir, entry.name)] : []
  )

/** The top folder of `src/` a file is in (a root file like `App.ts` answers its own name). */
const folderOf = (file: string) => path.relative(src, file).split(path.sep)[0]!

/** Every file reached from `entries`, each with the chain of imports that first reached it. */
const reach = (entries: ReadonlyArray<string>) => {
  const via = new Map<string, ReadonlyArray<string>>()
  const queue = entries.map((file) => [file] as ReadonlyArray<string>)
  for (const entry of entries) via.set(entry, [entry])
  while (queue.length > 0) {
    const chain = queue.shift()!
    for (const target of imports(chain[chain.length - 1]!)) {
      if (via.has(target)) continue
      expect(fs.existsSync(target), `${target} imported from ${chain[chain.length - 1]}`).toBe(true)
      const next = [...chain, target]
      via.set(target, next)
      queue.push(next)
    }
  }
  return via
}

describe("the run engine's layering", () => {
  for (const { above, folder } of layers) {
    it(`${folder}/ reaches nothing in ${above.join(", ")}`, () => {
      const entries = filesUnder(path.join(src, folder))
      expect(entries.length).toBeGreaterThan(0)
      const backwards = [...reach(entries).entries()]
        .filter(([file]) => above.includes(folderOf(file)))
        .map(([, chain]) => chain.map((f) => path.relative(src, f)).join(" → "))
      expect(backwards).toEqual([])
    })
  }

  it("finds the edges that point forward (the walk is not vacuous)", () => {
    // The engine reaches the store, and a feature reaches the engine: the same walk finds forward edges.
    expect([...reach(filesUnder(path.join(src, "Scheduler"))).keys()].some((f) => folderOf(f) === "RunStore")).toBe(true)
    expect([...reach(filesUnder(path.join(src, "Runs"))).keys()].some((f) => folderOf(f) === "Scheduler")).toBe(true)
  })
})
