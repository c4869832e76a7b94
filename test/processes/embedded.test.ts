import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { startService } from "../support/Process.js"
import { seedPgliteDir } from "../support/TestDatabase.js"
import { childPids, fresh, pidsServing } from "./support.js"

/**
 * The embedded database is a directory one process opens: WEB_CONCURRENCY
 * above 1 without DATABASE_URL is refused in the log, and the service runs
 * as the one process it was started as.
 */
describe("WEB_CONCURRENCY on the embedded database", () => {
  it("stays one process and says so", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "pts-processes-embedded-"))
    // Migrated beforehand: what is tested is the process count, not a first start.
    await seedPgliteDir(path.join(dataDir, "pg"))
    const service = await startService({ DATABASE_URL: "", DATA_DIR: dataDir, WEB_CONCURRENCY: "4", LOG_LEVEL: "Info" })
    try {
      const replies = await Promise.all(Array.from({ length: 8 }, () => fresh(service.url, "GET", "/api/v1/health")))
      expect(replies.map((r) => r.status)).toEqual(Array(8).fill(200))
      const output = service.output()
      expect(output).toMatch(/level=WARN .*message="WEB_CONCURRENCY ignored: the embedded database is opened by one process; set DATABASE_URL to run several".*webConcurrency=4/)
      expect(childPids(service.pid)).toEqual([])
      expect(output).not.toContain("service process started")
      // Every request was answered by the process that was started; its lines name no process.
      expect(pidsServing(output, "/api/v1/health")).toEqual(new Set())
      expect(output.match(/message="http request"/g)?.length).toBeGreaterThanOrEqual(8)
      expect(await service.stop()).toMatchObject({ code: 0 })
    } finally {
      if (service.isRunning()) service.kill("SIGKILL")
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  }, 300_000)
})
