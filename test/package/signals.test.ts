import { describe, expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { freePort, request, sleep, waitUntil } from "../support/Process.js"
import { repoRoot } from "../readme/readme.js"

/** Whether any process of the group `pgid` is still alive. */
const groupAlive = (pgid: number) => {
  try {
    process.kill(-pgid, 0)
    return true
  } catch {
    return false
  }
}

/**
 * A supervisor (systemd, a shell script, `kill`) has the pid of the command it
 * started: here `npm start`'s. SIGTERM to that pid must reach the service's
 * graceful shutdown, and nothing may be left running after it.
 */
describe("signals through npm", () => {
  it("SIGTERM to `npm start`'s pid drains the service and leaves no process behind", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "pts-signals-"))
    const port = await freePort()
    const env: Record<string, string | undefined> = {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      LOG_LEVEL: "Info",
      // Readiness answers 503 this long after the signal, and says so in the log.
      SHUTDOWN_DELAY_SECONDS: "1"
    }
    delete env.DATABASE_URL
    // A process group of its own: npm, and whatever npm starts beneath it.
    const npm = spawn("npm", ["start"], { cwd: repoRoot, env, detached: true, stdio: ["ignore", "pipe", "pipe"] })
    const pgid = npm.pid!
    let output = ""
    npm.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")))
    npm.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")))
    const exited = new Promise<number | null>((resolve) => npm.once("exit", (code) => resolve(code)))
    const url = `http://127.0.0.1:${port}`
    try {
      const ready = await waitUntil(
        async () => (await request(url, "GET", "/api/v1/health", { timeoutMs: 2000 })).status === 200 || npm.exitCode !== null,
        240_000,
        100
      )
      expect(ready && npm.exitCode === null, output).toBe(true)

      npm.kill("SIGTERM")
      const code = await Promise.race([exited, sleep(60_000).then(() => "still running" as const)])
      expect(code, output).toBe(0)
      expect(output).toContain(`message="draining: readiness answers 503"`)
      // Nothing of the group is left (before the fix, the service lived on under pid 1).
      expect(await waitUntil(() => !groupAlive(pgid), 5_000, 100), output).toBe(true)
      expect((await request(url, "GET", "/api/v1/health", { timeoutMs: 2000 })).status).toBe(0)
    } finally {
      if (groupAlive(pgid)) process.kill(-pgid, "SIGKILL")
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  }, 360_000)
})
