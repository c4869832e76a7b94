import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { Reporter, TestModule } from "vitest/node"

/**
 * A vitest reporter (beside the default one) that says where the time went:
 * at the end of a run, the run's wall time and the slowest files and tests,
 * printed so that CI's log shows them on every pass, and written to
 * node_modules/.cache/pts-test/last-run.json for `npm run test:report`
 * (docs/testing.md). A file's time is all it cost a worker: importing it,
 * its hooks (a shared service and database start in `beforeAll`) and its tests.
 */
const root = path.resolve(import.meta.dirname, "../..")
const output = path.join(root, "node_modules", ".cache", "pts-test", "last-run.json")

const shown = { files: 15, tests: 10 }

const seconds = (ms: number) => (ms / 1000).toFixed(1).padStart(6)

export default class TimeReport implements Reporter {
  private started = Date.now()

  onTestRunStart() {
    this.started = Date.now()
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>) {
    const wallMs = Date.now() - this.started
    const files = modules.map((module) => {
      const d = module.diagnostic()
      const tests = Array.from(module.children.allTests())
      return {
        file: path.relative(root, module.moduleId),
        ms: Math.round(d.environmentSetupDuration + d.prepareDuration + d.collectDuration + d.setupDuration + d.duration),
        importMs: Math.round(d.collectDuration),
        testsAndHooksMs: Math.round(d.duration),
        tests: tests.length,
        state: module.state()
      }
    }).sort((a, b) => b.ms - a.ms)
    const tests = modules.flatMap((module) =>
      Array.from(module.children.allTests()).map((test) => ({
        file: path.relative(root, module.moduleId),
        name: test.fullName,
        ms: Math.round(test.diagnostic()?.duration ?? 0)
      }))
    ).sort((a, b) => b.ms - a.ms)
    const busyMs = files.reduce((sum, f) => sum + f.ms, 0)
    // A file whose shared setup (beforeAll) failed or timed out reports its tests
    // as skipped: said here in so many words, so such a run never reads as a pass.
    const setupFailures = modules.flatMap((module) =>
      [module, ...module.children.allSuites()].flatMap((suite) =>
        suite.errors().map((error) => {
          const skipped = Array.from(suite.children.allTests()).filter((t) => t.result().state === "skipped").length
          return `${path.relative(root, module.moduleId)}: ${skipped} tests did not run, their setup failed: ${String(error.message).split("\n")[0]}`
        })
      )
    )
    const lines = [
      "",
      `== test time: ${(wallMs / 1000).toFixed(0)} s wall for ${files.length} files (${(busyMs / 1000).toFixed(0)} s in files across workers), load average ${os.loadavg()[0]!.toFixed(1)} on ${os.availableParallelism()} cores`,
      `== slowest files (s, import + hooks + tests):`,
      ...files.slice(0, shown.files).map((f) => `${seconds(f.ms)}  ${f.file} (${f.tests} tests)`),
      `== slowest tests (s):`,
      ...tests.slice(0, shown.tests).map((t) => `${seconds(t.ms)}  ${t.file} > ${t.name}`),
      ...(setupFailures.length > 0 ? ["== FAILED SETUP (vitest fails the run for these files):", ...setupFailures] : []),
      ""
    ]
    process.stdout.write(lines.join("\n") + "\n")
    try {
      fs.mkdirSync(path.dirname(output), { recursive: true })
      fs.writeFileSync(
        output,
        JSON.stringify({ date: new Date().toISOString(), cpus: os.cpus()[0]?.model, cores: os.availableParallelism(), loadAverage: os.loadavg(), wallMs, files, tests }, null, 1)
      )
    } catch {
      // the printed lines are the report; the file is a convenience
    }
  }
}
