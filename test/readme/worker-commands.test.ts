import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { repoRoot, run } from "./readme.js"

/**
 * The command the docs give a supervisor (one that waits for the agent's
 * own shutdown, so not through npx; docs/operations.md, "Stopping, signals
 * and Docker") runs in a checkout after `npm ci`; the package's own bin is
 * not linked into its node_modules/.bin there.
 */
describe("docs/operations.md: the worker command a supervisor starts", () => {
  it("exists in a checkout and starts the agent", async () => {
    const readme = fs.readFileSync(path.join(repoRoot, "README.md"), "utf8")
    const operations = fs.readFileSync(path.join(repoRoot, "docs", "operations.md"), "utf8")
    expect(readme).not.toContain("node_modules/.bin/pipeline-worker`")
    expect(operations).not.toContain("node_modules/.bin/pipeline-worker`")
    const commands = [...operations.matchAll(/a supervisor that waits for the end of the shutdown should\s+start the agent directly: `([^`]+)`/g)].map((m) => m[1]!)
    expect(commands).toEqual(["node bin/pipeline-worker.js"])
    const [program, ...args] = commands[0]!.split(" ")
    const help = await run(program === "node" ? process.execPath : program!, [...args, "--help"], { cwd: repoRoot, timeoutMs: 30_000 })
    expect(help.code, help.stderr).toBe(0)
    expect(help.stdout).toMatch(/^Usage: pipeline-worker --url/)
  })
})
