import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { executeRun } from "../../src/WorkerAgent/Agent.js"
import { parse } from "../../src/WorkerAgent/Options.js"
import { RunLog } from "../../src/WorkerSdk/RunLog.js"
import type { WorkerRun } from "../../src/WorkerSdk/Types.js"

/** A run of a trigger whose command is `command` (only the fields the agent reads). */
const runOf = (command: string) =>
  ({
    id: "0190f000-0000-7000-8000-000000000001",
    triggerId: "0190f000-0000-7000-8000-000000000002",
    attempt: 1,
    input: null,
    trigger: { command }
  }) as unknown as WorkerRun

describe("pipeline-worker: exit codes the user maps to non-retryable", () => {
  it.effect("--non-retryable-exit-codes / PIPELINE_NON_RETRYABLE_EXIT_CODES: parsed, the flag wins; bad lists refused", () =>
    Effect.gen(function*() {
      const fromEnv = yield* parse(["--url", "http://localhost:3000"], { PIPELINE_NON_RETRYABLE_EXIT_CODES: "3, 78" })
      expect([...fromEnv.nonRetryableExitCodes]).toEqual([3, 78])
      const fromFlag = yield* parse(["--url", "http://localhost:3000", "--non-retryable-exit-codes", "64"], {
        PIPELINE_NON_RETRYABLE_EXIT_CODES: "3"
      })
      expect([...fromFlag.nonRetryableExitCodes]).toEqual([64])
      expect((yield* parse(["--url", "http://localhost:3000"], {})).nonRetryableExitCodes.size).toBe(0)
      for (const bad of ["0", "256", "3,x", "1.5"]) {
        const error = yield* Effect.flip(parse(["--url", "http://x", "--non-retryable-exit-codes", bad], {}))
        expect(error.message).toMatch(/--non-retryable-exit-codes/)
      }
    }))

  it.effect("a mapped exit code fails the run with retryable false; another failure leaves retrying to the trigger", () =>
    Effect.gen(function*() {
      const mapped = yield* executeRun(runOf("echo no config >&2; exit 78"), new Set([78]))
      expect(mapped).toMatchObject({ status: "failed", stderr: "no config", faultClass: "client", retryable: false })
      const other = yield* executeRun(runOf("exit 1"), new Set([78]))
      expect(other.status).toBe("failed")
      expect(other.retryable).toBeUndefined()
      const ok = yield* executeRun(runOf("echo fine"), new Set([78]))
      expect(ok).toEqual({ status: "succeeded", stdout: "fine" })
    }).pipe(Effect.provideService(RunLog, RunLog.of({ write: () => Effect.void }))))
})
