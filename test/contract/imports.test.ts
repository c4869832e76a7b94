import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { resolveRelative, specifiersOf } from "./ImportGraph.js"

/**
 * The contract (every module of `src/Contract/`: the API groups, the wire
 * schemas and errors), the typed client and the worker SDK must load in a
 * client or a browser with `effect` and `@effect/platform` alone: no database
 * driver, no `node:` module, no server code reached through a value import. Type-only imports
 * are erased at build time and do not count.
 */
const root = path.resolve(import.meta.dirname, "../..")
// @effect/rpc carries the worker channel's contract (`Contract/WorkerChannelRpcs`): its RpcGroup and client are pure modules.
const allowedPackages = new Set(["effect", "@effect/platform", "@effect/experimental", "@effect/rpc"])
// The client follows the live event stream with @effect/experimental's SSE parser, a pure module.
const allowedExperimental = new Set(["@effect/experimental/Sse"])

interface Edge {
  readonly from: string
  readonly specifier: string
}

/** Every external specifier reached from `entries` through value imports, with the file that imports it. */
const reach = (entries: ReadonlyArray<string>) => {
  const seen = new Set<string>()
  const external: Array<Edge> = []
  const visit = (file: string) => {
    if (seen.has(file)) return
    seen.add(file)
    for (const specifier of specifiersOf(file, { types: false })) {
      if (specifier.startsWith(".")) {
        const target = resolveRelative(file, specifier)
        expect(fs.existsSync(target), `${specifier} from ${file}`).toBe(true)
        visit(target)
      } else {
        external.push({ from: path.relative(root, file), specifier })
      }
    }
  }
  for (const entry of entries) visit(path.resolve(root, entry))
  return { files: [...seen].map((f) => path.relative(root, f)), external }
}

const packageOf = (specifier: string) => specifier.split("/").slice(0, specifier.startsWith("@") ? 2 : 1).join("/")

const offending = (edges: ReadonlyArray<Edge>) =>
  edges.filter(({ specifier }) =>
    !allowedPackages.has(packageOf(specifier)) ||
    (packageOf(specifier) === "@effect/experimental" && !allowedExperimental.has(specifier))
  ).map(({ from, specifier }) => `${from} imports ${specifier}`)

/** Every module under `src/Contract/`: the contract is that folder. */
const contractFiles = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return contractFiles(full)
    return entry.name.endsWith(".ts") ? [path.relative(root, full)] : []
  })

describe("the contract imports nothing server-side", () => {
  it("every module of src/Contract/, the typed client and the worker SDK reach only effect and @effect/platform (and @effect/rpc)", () => {
    const entries = ["src/Client.ts", "src/WorkerSdk/WorkerSdk.ts", ...contractFiles(path.join(root, "src/Contract"))]
    const { external, files } = reach(entries)
    expect(offending(external)).toEqual([])
    // The walk really went through the API: every group's definition is in it.
    expect(files).toContain("src/Contract/RunsApi.ts")
    expect(files).toContain("src/Contract/AuthApi.ts")
    expect(files).toContain("src/Contract/WorkerChannelRpcs.ts")
    expect(files.length).toBeGreaterThan(20)
  })

  it("the check catches a server module reached from the contract", () => {
    // The repository's own Users service (SqlClient, node:crypto by way of Crypto/Ids) is what the check must refuse.
    const { external } = reach(["src/Auth/Users.ts"])
    expect(offending(external)).toEqual(expect.arrayContaining(["src/Auth/Users.ts imports @effect/sql/SqlClient", "src/Crypto/Ids.ts imports node:crypto"]))
  })
})
