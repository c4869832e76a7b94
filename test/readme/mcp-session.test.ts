import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { spawn } from "node:child_process"
import { freePort, startService } from "../support/Process.js"
import { seedPgliteDir } from "../support/TestDatabase.js"
import { readmeBlocks, readmeSection, run } from "./readme.js"

/** The tool names `tools/list` printed: the lines of the session's output from describe_trigger on that name a tool. */
const listTools = (stdout: string): Array<string> => {
  const lines = stdout.split("\n")
  const from = lines.indexOf("describe_trigger")
  const names: Array<string> = []
  for (let i = from; i >= 0 && i < lines.length && /^[a-z_]+$/.test(lines[i]!); i++) names.push(lines[i]!)
  return names
}

/**
 * The README's MCP curl session, run as written after the tour it builds on
 * (with the tour's webhook receiver, whose delivery the tour's redelivery
 * step needs finished), against the service started as `npm start` does.
 */
describe("README: the MCP endpoint by hand", () => {
  it("initialize, notifications/initialized, tools/list and tools/call run_trigger answer as the README says", async () => {
    const [, tour] = readmeBlocks("Five-minute tour", "sh")
    const [session] = readmeBlocks("AI agents (MCP)", "sh")
    expect(session).toContain("rotate-mcp-token")
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "pts-mcp-readme-"))
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "pts-mcp-readme-cwd-"))
    const receiverPort = await freePort()
    const receiver = spawn(process.execPath, [path.resolve(import.meta.dirname, "../../examples/webhook-receiver.mjs")], {
      env: { ...process.env, PORT: String(receiverPort), WEBHOOK_SECRET: "tour-webhook-secret-0123" },
      stdio: "ignore"
    })
    // Migrated beforehand (the tour's own test covers a first start).
    await seedPgliteDir(path.join(dataDir, "pg"))
    const service = await startService({ DATA_DIR: dataDir, DATABASE_URL: "", WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" })
    try {
      const script = `${tour}\n${session}`
        .replaceAll("localhost:3000", `localhost:${service.port}`)
        .replaceAll("127.0.0.1:4000", `127.0.0.1:${receiverPort}`)
      const result = await run("bash", ["-e", "-o", "pipefail", "-c", script], { cwd: work, timeoutMs: 60_000 })
      expect(result.code, `${result.stdout}\n${result.stderr}\n${service.output()}`).toBe(0)
      expect(result.stdout).toContain(`{"protocolVersion":"2025-06-18","serverInfo":{"name":"pipeline-trigger-service","title":"Pipeline Trigger Service","version":"1"}}`)
      expect(result.stdout).toMatch(/^202$/m)
      expect(result.stdout).toContain("describe_trigger\nrun_trigger\nget_run\nlist_runs\nwait_for_run\ncancel_run\n")
      // The sentence under the block counts what the block prints.
      const printed = listTools(result.stdout).length
      const words = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
      expect(readmeSection("AI agents (MCP)")).toContain(`\`202\`, the ${words[printed]} tool names`)
      expect(result.stdout).toMatch(/\{"id":"[0-9a-f-]{36}","status":"(queued|assigned)","input":\{"greeting":"from an agent"\}\}/)
    } finally {
      receiver.kill()
      await service.stop()
      fs.rmSync(work, { recursive: true, force: true })
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  }, 120_000)
})
