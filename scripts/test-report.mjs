#!/usr/bin/env node
// Prints the last test run's timings (written by test/support/TimeReport.ts) as
// Markdown tables, for docs/testing.md: `npm run test:report [-- files [tests]]`.
import * as fs from "node:fs"
import * as path from "node:path"

const file = path.resolve(import.meta.dirname, "..", "node_modules", ".cache", "pts-test", "last-run.json")
if (!fs.existsSync(file)) {
  console.error("no test run recorded yet: run `npm test` (or vitest on some files) first")
  process.exit(1)
}
const run = JSON.parse(fs.readFileSync(file, "utf8"))
const [files = 20, tests = 10] = process.argv.slice(2).map(Number)
const s = (ms) => (ms / 1000).toFixed(1)

console.log(`Run of ${run.date}: ${run.files.length} files in ${s(run.wallMs)} s wall; ${run.cores} cores (${run.cpus}), load average at the end ${run.loadAverage.map((l) => l.toFixed(1)).join(" / ")}.\n`)
console.log("| file | s (import + hooks + tests) | of which tests and hooks | tests |")
console.log("| --- | ---: | ---: | ---: |")
for (const f of run.files.slice(0, files)) console.log(`| ${f.file} | ${s(f.ms)} | ${s(f.testsAndHooksMs)} | ${f.tests} |`)
console.log("\n| test | s |")
console.log("| --- | ---: |")
for (const t of run.tests.slice(0, tests)) console.log(`| ${t.file} > ${t.name.replaceAll("|", "\\|")} | ${s(t.ms)} |`)
