import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { repoRoot, run } from "../readme/readme.js"

/**
 * A fresh embedded database, opened and migrated by a process of its own (the
 * build in dist/, as `npm start` runs it), then idle: its resident memory.
 * Creating the database used to leave a second Postgres instance, initdb and a
 * tarball of the new directory in the process, unreleased: 780-820 MB here,
 * against ~250 MB once the directory is created in a child and Postgres's
 * shared buffers are 32 MB. The bound sits halfway, far from both.
 */
const fixture = path.join(import.meta.dirname, "fixtures/open-embedded.mjs")

describe("the embedded database's memory", () => {
  it("a fresh data directory, created and migrated, idles under 500 MB RSS; Postgres's shared buffers are 32 MB", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pts-embedded-memory-"))
    try {
      const env: Record<string, string | undefined> = { ...process.env, NODE_OPTIONS: undefined }
      const opened = await run(process.execPath, [fixture, path.join(dir, "pg")], { cwd: repoRoot, env, timeoutMs: 120_000 })
      const line = opened.stdout.split("\n").find((l) => l.startsWith("RESULT "))
      expect(line, opened.stdout + opened.stderr).toBeDefined()
      const result = JSON.parse(line!.slice("RESULT ".length)) as { rssMb: number; sharedBuffers: string }
      expect(result.sharedBuffers).toBe("32MB")
      expect(result.rssMb).toBeLessThan(500)
      expect(fs.existsSync(path.join(dir, "pg", "PG_VERSION"))).toBe(true)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }, 120_000)
})
