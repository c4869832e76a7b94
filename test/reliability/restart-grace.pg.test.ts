import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { cleanupsAfterAll, createDatabase } from "../support/Process.js"
import { outageScenario } from "./restartGrace.js"

/**
 * Restart grace on Postgres: the only instance is killed (kill -9, so it
 * records no stop: its record goes stale) for longer than the heartbeat
 * timeout and started again. See `outageScenario`.
 */

const cleanup = cleanupsAfterAll()

describe("restart grace (Postgres)", () => {
  it("kill -9, an outage longer than the heartbeat timeout: the live worker's run survives and succeeds, the dead one's times out a window after the restart", async () => {
    const db = await createDatabase()
    cleanup(db.drop)
    const result = await outageScenario({
      env: { DATABASE_URL: db.url, DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "pts-grace-")) },
      how: "SIGKILL",
      cleanup
    })
    expect(result.outageMs).toBeGreaterThan(10_000)
    const [instances] = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM service_instances")
    // The crashed instance's record was dropped by the restart; the new one is recorded.
    expect(instances?.n).toBe(1)
  }, 180_000)
})
