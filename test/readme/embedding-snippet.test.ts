import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { readmeBlocks, repoRoot, run } from "./readme.js"

/**
 * The README's embedding program, copied as a reader would: saved inside the
 * repository (where `pipeline-trigger-service` resolves to this package) and
 * run with tsx from an empty directory, where its `./pipelines-data` does not
 * exist yet. It must create its database, run the run on its in-process
 * worker and exit by itself.
 */
describe("README: embedding the scheduler", () => {
  it("the program in the README runs a run to its end and exits", async () => {
    const [program] = readmeBlocks("Embedding the scheduler", "ts")
    expect(program).toContain("NodeRuntime.runMain")
    const snippets = path.join(repoRoot, ".readme-snippets")
    fs.mkdirSync(snippets, { recursive: true })
    const file = path.join(snippets, `embed-${process.pid}.ts`)
    fs.writeFileSync(file, program!)
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "pts-readme-embed-"))
    try {
      const tsx = path.join(repoRoot, "node_modules/tsx/dist/cli.mjs")
      const env: Record<string, string | undefined> = { ...process.env, DATABASE_URL: undefined }
      const result = await run(process.execPath, [tsx, file], { cwd, env, timeoutMs: 90_000 })
      const output = result.stdout + result.stderr
      expect(result.code, output).toBe(0)
      // NodeRuntime's default (pretty) logger: the message, then one `key: value` line per annotation.
      expect(output).toMatch(/INFO \(#\d+\): run ended\n\s+runId: [0-9a-f-]{36}\n\s+status: succeeded\n\s+shortMessage: loaded \{"table":"orders"\}/)
      expect(fs.existsSync(path.join(cwd, "pipelines-data", "pg"))).toBe(true)
    } finally {
      fs.rmSync(file, { force: true })
      fs.rmSync(cwd, { recursive: true, force: true })
    }
  }, 120_000)
})
