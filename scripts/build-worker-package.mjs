// Builds packages/worker (`pipeline-trigger-worker`): the worker agent and SDK
// installable without the service. `npm run build:worker` here, or `npm pack` /
// `npm publish` in packages/worker (its prepack). It builds the service's dist/
// first (tsc, incremental), whose files it takes.
//
//   dist/WorkerAgent/Cli.js   the `pipeline-worker` agent bundled into one file with
//                             everything it imports (effect, @effect/*, ws): the
//                             package has no dependencies, `npm install -g` is a few MB.
//   dist/WorkerSdk/...        the SDK as tsc built it, with the modules it imports
//                             (the API contract), .js and .d.ts; effect and @effect/*
//                             are its optional peer dependencies, which an Effect
//                             program has anyway, so the agent's users never get them.
//   bin/pipeline-worker.js    the root package's bin, unchanged.
//
// The bundle sits at the same depth as in the service's dist/, so the agent finds
// the package.json it reports with --version at the same relative place.
import * as esbuild from "esbuild"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"

const root = path.resolve(import.meta.dirname, "..")
const out = path.join(root, "packages/worker")

/** The relative imports of a built module (.js or .d.ts), as absolute paths. */
const relativeImports = (file) => {
  const text = fs.readFileSync(file, "utf8")
  const specs = [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)"(\.[^"]+)"/g)].map((m) => m[1])
  return specs.map((spec) => path.resolve(path.dirname(file), spec))
}

/** `entry` and every built module it reaches by relative imports. */
const closure = (entry) => {
  const seen = new Set()
  const visit = (file) => {
    if (seen.has(file) || !fs.existsSync(file)) return
    seen.add(file)
    for (const next of relativeImports(file)) {
      // A .d.ts names its neighbours `./X.js`: the declaration is `./X.d.ts`.
      visit(next)
      if (file.endsWith(".d.ts")) visit(next.replace(/\.js$/, ".d.ts"))
    }
  }
  visit(entry)
  return [...seen]
}

const newestMtime = (entry) => {
  const stat = fs.statSync(entry)
  if (!stat.isDirectory()) return stat.mtimeMs
  return Math.max(stat.mtimeMs, ...fs.readdirSync(entry).map((name) => newestMtime(path.join(entry, name))))
}
const stamp = path.join(root, "dist/.tsbuildinfo")
// tsc checks the whole project even when nothing changed: skip it when the build is newer than every source.
if (!fs.existsSync(stamp) || fs.statSync(stamp).mtimeMs < newestMtime(path.join(root, "src"))) {
  execFileSync(process.execPath, [path.join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"], { cwd: root, stdio: "inherit" })
  // tsc leaves its build info untouched when no output changed: mark the build as current.
  fs.utimesSync(stamp, new Date(), new Date())
}
const dist = path.join(root, "dist")

fs.rmSync(path.join(out, "dist"), { recursive: true, force: true })
fs.rmSync(path.join(out, "bin"), { recursive: true, force: true })

// The SDK: the built files themselves, so its types are the service's own.
const sdk = new Set([
  ...closure(path.join(dist, "WorkerSdk/WorkerSdk.js")),
  ...closure(path.join(dist, "WorkerSdk/WorkerSdk.d.ts"))
])
for (const file of sdk) {
  const target = path.join(out, "dist", path.relative(dist, file))
  fs.mkdirSync(path.dirname(target), { recursive: true })
  // Source maps point into the service's src/, which this package does not ship: drop the link.
  const text = fs.readFileSync(file, "utf8").replace(/\n\/\/# sourceMappingURL=.*$/, "\n")
  fs.writeFileSync(target, text)
}

// The agent: one file, no dependencies.
await esbuild.build({
  entryPoints: [path.join(root, "src/WorkerAgent/Cli.ts")],
  outfile: path.join(out, "dist/WorkerAgent/Cli.js"),
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  minify: true,
  legalComments: "linked",
  // ws's optional native speed-ups: it runs without them, as it does in the service.
  external: ["bufferutil", "utf-8-validate"],
  // Bundled CommonJS (ws) calls require(): give the ES module one.
  banner: { js: "import { createRequire as __createRequire } from \"node:module\"; const require = __createRequire(import.meta.url);" },
  logLevel: "warning"
})

fs.mkdirSync(path.join(out, "bin"), { recursive: true })
fs.copyFileSync(path.join(root, "bin/pipeline-worker.js"), path.join(out, "bin/pipeline-worker.js"))
fs.chmodSync(path.join(out, "bin/pipeline-worker.js"), 0o755)
