import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { resolveRelative, specifiersOf } from "./ImportGraph.js"

/**
 * The whole of `src/` in places, and the edges between places that must
 * never exist. Every top-level folder (or root module) has one place:
 *
 * - contract: the HttpApi groups, wire schemas, errors and middleware tags
 *   (`Contract/`), which clients and the worker SDK reuse;
 * - clients: the typed client, the worker SDK and the worker agent;
 * - features: one folder per feature (handlers, services, repositories);
 * - engine: the run store and the scheduler over it;
 * - delivery: webhook delivery, which plugs into the engine through the
 *   engine's own port (`Scheduler/TerminalHandoff`, a Tag it implements);
 * - infrastructure: database, HTTP server, config, crypto, concurrency,
 *   metrics: knows nothing of the engine or the features;
 * - entry: composition and launch (`App`, `main`, `index`, the embedding
 *   layers, the cluster primary).
 *
 * Every import counts, type-only ones too (a type pointing back is the same
 * tangle), followed transitively: a failure names the chain of imports from
 * a file of the place to the first file it must not reach.
 */
const src = path.resolve(import.meta.dirname, "../../src")

type Place = "contract" | "clients" | "features" | "engine" | "delivery" | "infrastructure" | "entry"

/** Each top-level entry of `src/` (a folder, or a root module without `.ts`) and its place. */
const places: Readonly<Record<string, Place>> = {
  Contract: "contract",
  Client: "clients",
  WorkerSdk: "clients",
  WorkerAgent: "clients",
  ApiKeys: "features",
  Audit: "features",
  Auth: "features",
  BulkActions: "features",
  ConcurrencyPools: "features",
  Dashboard: "features",
  Events: "features",
  Health: "features",
  Mcp: "features",
  Retention: "features",
  RunLogs: "features",
  Runs: "features",
  Tenancy: "features",
  Triggers: "features",
  Web: "features",
  WorkerChannel: "features",
  WorkerProtocol: "features",
  Workers: "features",
  RunStore: "engine",
  Scheduler: "engine",
  Webhooks: "delivery",
  Concurrency: "infrastructure",
  Config: "infrastructure",
  Crypto: "infrastructure",
  Db: "infrastructure",
  Http: "infrastructure",
  Observability: "infrastructure",
  App: "entry",
  Embed: "entry",
  Processes: "entry",
  index: "entry",
  main: "entry"
}

/** The shared kernel of the contract (errors, schemas, ids, the run record): infrastructure may speak it. */
const contractKernel = "Contract/Domain/"
/** The audit log records the engine's changes in their own transactions: the one feature module the engine uses. */
const auditLog = "Audit/AuditLog.ts"

interface Rule {
  /** The place whose files are walked. */
  readonly from: Place
  /** Only its files under this folder (`RunStore/`), when the rule is about part of the place. */
  readonly within?: string
  /** What the rule says, as the failure shows it. */
  readonly says: string
  /** Whether a file of `from` must never reach `file` (its path relative to `src/`, and its place). */
  readonly forbids: (file: string, place: Place | undefined) => boolean
}

const rules: ReadonlyArray<Rule> = [
  {
    from: "contract",
    says: "the contract imports nothing server-side",
    forbids: (_, place) => place !== "contract"
  },
  {
    from: "clients",
    says: "clients reach the contract and other clients only (no engine, no infrastructure, no server code)",
    forbids: (_, place) => place !== "contract" && place !== "clients"
  },
  {
    from: "engine",
    says: "the engine reaches no webhook delivery (delivery implements the engine's port), no feature but the audit log, no entry",
    forbids: (file, place) => place === "delivery" || place === "entry" || place === "clients" || (place === "features" && file !== auditLog)
  },
  {
    from: "engine",
    within: "RunStore/",
    says: "the run store is below the scheduler",
    forbids: (file) => file.startsWith("Scheduler/")
  },
  {
    from: "infrastructure",
    says: "infrastructure reaches no engine, feature, delivery or entry, and of the contract only its kernel (Contract/Domain)",
    forbids: (file, place) => place !== "infrastructure" && !file.startsWith(contractKernel)
  },
  {
    from: "delivery",
    says: "webhook delivery reaches no entry",
    forbids: (_, place) => place === "entry" || place === "clients"
  },
  {
    from: "features",
    says: "features reach no entry",
    forbids: (_, place) => place === "entry" || place === "clients"
  }
]

/** The top-level entry of `src/` a file is in: a folder's name, or a root module's without `.ts`. */
const topOf = (file: string) => file.split("/")[0]!.replace(/\.ts$/, "")
const placeOf = (file: string): Place | undefined => places[topOf(file)]

const filesUnder = (dir: string): ReadonlyArray<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(path.join(dir, entry.name)) : entry.name.endsWith(".ts") ? [path.join(dir, entry.name)] : []
  )

/** Every module of `src/`, relative to it (`Runs/RunRequests.ts`). */
const allFiles = filesUnder(src).map((file) => path.relative(src, file).split(path.sep).join("/"))

/** The modules of `src/` one module imports or re-exports, type-only imports included. */
const importsOf = (file: string): ReadonlyArray<string> =>
  specifiersOf(path.join(src, file), { types: true }).filter((s) => s.startsWith(".")).map((s) =>
    path.relative(src, resolveRelative(path.join(src, file), s)).split(path.sep).join("/")
  )

/**
 * The chains of imports that break `rule`, one per forbidden file reached
 * (the first chain that reaches it), walking from every file of its place.
 */
const breaches = (rule: Rule, files: ReadonlyArray<string>, imports: (file: string) => ReadonlyArray<string>) => {
  const entries = files.filter((file) => placeOf(file) === rule.from && file.startsWith(rule.within ?? ""))
  const via = new Map<string, ReadonlyArray<string>>(entries.map((file) => [file, [file]]))
  const queue = entries.map((file) => [file] as ReadonlyArray<string>)
  const found: Array<string> = []
  while (queue.length > 0) {
    const chain = queue.shift()!
    for (const target of imports(chain[chain.length - 1]!)) {
      if (via.has(target)) continue
      const next = [...chain, target]
      via.set(target, next)
      // Past a forbidden file the walk stops: the first breach is the one to fix.
      if (rule.forbids(target, placeOf(target))) found.push(next.join(" → "))
      else queue.push(next)
    }
  }
  return found
}

describe("the layering of src/", () => {
  it("gives every top-level folder and root module of src/ a place, and lists nothing that is gone", () => {
    const tops = [...new Set(allFiles.map(topOf))].sort()
    expect(tops.filter((top) => places[top] === undefined)).toEqual([])
    expect(Object.keys(places).filter((top) => !tops.includes(top))).toEqual([])
  })

  it("imports resolve to modules that exist", () => {
    const missing = allFiles.flatMap((file) => importsOf(file).filter((target) => !allFiles.includes(target)).map((t) => `${file} → ${t}`))
    expect(missing).toEqual([])
  })

  for (const rule of rules) {
    it(`${rule.within ?? rule.from}: ${rule.says}`, () => {
      expect(allFiles.some((file) => placeOf(file) === rule.from && file.startsWith(rule.within ?? ""))).toBe(true)
      expect(breaches(rule, allFiles, importsOf)).toEqual([])
    })
  }

  it("finds the edges that point the allowed way (the walk is not vacuous)", () => {
    const reached = (from: string, target: string) =>
      breaches({ from: placeOf(from)!, says: "", forbids: (file) => file.startsWith(target) }, [from], importsOf).length > 0
    expect(reached("Scheduler/Supervision.ts", "RunStore/")).toBe(true)
    expect(reached("Runs/RunRequests.ts", "Scheduler/")).toBe(true)
    expect(reached("Webhooks/Handoff.ts", "Scheduler/")).toBe(true)
    expect(reached("Http/ErrorMiddleware.ts", contractKernel)).toBe(true)
    expect(reached("WorkerSdk/WorkerSdk.ts", "Contract/")).toBe(true)
  })

  it("refuses each edge issue 32 named as misplaced (and the run store reaching the scheduler), were it put back", () => {
    // The edges as they were, added to the real graph: each must break a rule, named with its chain.
    const misplaced: Record<string, ReadonlyArray<string>> = {
      "RunStore/RunStore.ts": ["Scheduler/Dispatch.ts"],
      "Http/RunRejections.ts": ["Scheduler/RunRejection.ts"],
      "Http/AccessErrors.ts": ["Tenancy/TenancyErrors.ts"],
      "Observability/MetricsRoute.ts": ["Scheduler/Supervision.ts"],
      "Observability/RouteTemplates.ts": ["Contract/WorkerChannelRpcs.ts"]
    }
    const files = [...new Set([...allFiles, ...Object.keys(misplaced)])]
    const imports = (file: string) => [...(misplaced[file] ?? []), ...(allFiles.includes(file) ? importsOf(file) : [])]
    const broken = rules.flatMap((rule) => breaches(rule, files, imports))
    for (const [file, targets] of Object.entries(misplaced)) {
      for (const target of targets) expect(broken).toContain(`${file} → ${target}`)
    }
  })
})

/**
 * Who touches which table, read from the SQL in the source: the delivery's
 * table is the delivery's, and every write to `runs` is the run store's.
 */
const sqlOwnership: ReadonlyArray<{ readonly says: string; readonly pattern: RegExp; readonly owners: ReadonlyArray<string> }> = [
  {
    says: "only webhook delivery reads or writes webhook_deliveries (Db/Schema lists the tables)",
    pattern: /\bwebhook_deliveries\b/,
    owners: ["Webhooks/", "Db/Schema.ts"]
  },
  {
    says: "only the run store writes runs (retention deletes expired history)",
    pattern: /\b(INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+runs\b/i,
    owners: ["RunStore/", "Retention/"]
  }
]

const offendersOf = (rule: (typeof sqlOwnership)[number], texts: ReadonlyArray<readonly [string, string]>) =>
  texts.filter(([file, text]) => !rule.owners.some((owner) => file.startsWith(owner)) && rule.pattern.test(text)).map(([file]) => file)

describe("table ownership", () => {
  const texts = allFiles.map((file) => [file, fs.readFileSync(path.join(src, file), "utf8")] as const)

  for (const rule of sqlOwnership) {
    it(rule.says, () => {
      // The owners really do use the table: the pattern is not vacuous.
      expect(texts.some(([file, text]) => rule.owners.some((owner) => file.startsWith(owner)) && rule.pattern.test(text))).toBe(true)
      expect(offendersOf(rule, texts)).toEqual([])
    })
  }

  it("refuses Runs/RunHistory reading webhook_deliveries itself, were it put back", () => {
    const reintroduced = [...texts, ["Runs/RunHistory.ts", "sql`SELECT * FROM webhook_deliveries WHERE run_id = ${id}`"] as const]
    expect(offendersOf(sqlOwnership[0]!, reintroduced)).toContain("Runs/RunHistory.ts")
  })
})
