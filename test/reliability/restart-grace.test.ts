import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { cleanupsAfterAll } from "../support/Process.js"
import { outageScenario } from "./restartGrace.js"

/**
 * Restart grace on the embedded database: the service is stopped gracefully
 * (Ctrl-C) for longer than the heartbeat timeout and started again on the
 * same DATA_DIR. See `outageScenario`.
 */

const cleanup = cleanupsAfterAll()

describe("restart grace (embedded)", () => {
  it("an outage longer than the heartbeat timeout: the live worker's run survives and succeeds, the dead one's times out a window after the restart", async () => {
    const result = await outageScenario({
      env: { DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "pts-grace-")) },
      how: "SIGTERM",
      cleanup
    })
    expect(result.outageMs).toBeGreaterThan(10_000)
  }, 180_000)
})
