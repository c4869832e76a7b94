import { describe, expect, it } from "@effect/vitest"
import * as path from "node:path"
import { repoRoot, run } from "../readme/readme.js"
import { createDatabase } from "../support/Process.js"

/**
 * Thousands of statements waiting for a connection and then abandoned (their
 * fibers interrupted), as when 3,000 worker channels close at once. The pool
 * hands each freed connection to the next waiter and an abandoned waiter
 * gives it straight back, inside the same call: that chain recursed once per
 * waiter, overflowed the stack and ended the service process (an uncaught
 * `RangeError` from a `pg` callback). Run in a process of its own
 * (`fixtures/abandoned-waiters.mjs`), so a crash is this test's failure.
 */
const fixture = path.join(import.meta.dirname, "fixtures/abandoned-waiters.mjs")

describe("the connection pool (Postgres)", () => {
  for (const prepared of [true, false]) {
    it(`20,000 abandoned waiters for a connection are passed over; the pool answers after (prepared statements ${prepared ? "on" : "off"})`, async () => {
      const db = await createDatabase()
      try {
        const env: Record<string, string | undefined> = { ...process.env, NODE_OPTIONS: undefined }
        const done = await run(process.execPath, [fixture, db.url, String(prepared)], { cwd: repoRoot, env, timeoutMs: 90_000 })
        expect(done.stderr).not.toContain("RangeError")
        expect(done.stdout.split("\n").find((l) => l.startsWith("RESULT ")), done.stdout + done.stderr).toBe(`RESULT [{"n":7}]`)
      } finally {
        await db.drop()
      }
    }, 120_000)
  }
})
