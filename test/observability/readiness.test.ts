import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { cleanupsAfterAll, request, sleep, startService } from "../support/Process.js"

const cleanup = cleanupsAfterAll()

/**
 * A load balancer must see the instance leave before its port closes: on
 * SIGTERM `/health/ready` answers 503 at once, the service keeps serving for
 * SHUTDOWN_DELAY_SECONDS, then stops accepting and exits cleanly.
 */
// The drain delay: long enough that the bounds below leave room for a machine at
// load 16 (a probe there can take a second or more), short enough for a test.
const delayMs = 6_000

describe("readiness on SIGTERM", () => {
  it.live("ready flips to 503 first, liveness and other routes still answer, then the port closes", () =>
    Effect.gen(function*() {
      const service = yield* Effect.promise(() => startService({ SHUTDOWN_DELAY_SECONDS: String(delayMs / 1000) }))
      cleanup(() => service.stop())
      const close = { connection: "close" }
      const ready = yield* Effect.promise(() => request(service.url, "GET", "/health/ready", { headers: close }))
      expect(ready.status).toBe(200)
      expect(ready.body).toEqual({ status: "ready" })

      const sigtermAt = Date.now()
      service.kill("SIGTERM")
      const seen: Array<{ at: number; ready: number; live: number }> = []
      for (;;) {
        const [r, l] = yield* Effect.promise(() =>
          Promise.all([
            request(service.url, "GET", "/health/ready", { headers: close, timeoutMs: delayMs / 2 }),
            request(service.url, "GET", "/api/v1/health/live", { headers: close, timeoutMs: delayMs / 2 })
          ])
        )
        seen.push({ at: Date.now() - sigtermAt, ready: r.status, live: l.status })
        if (r.status === 0 && l.status === 0) break
        if (Date.now() - sigtermAt > delayMs + 15_000) break
        yield* Effect.promise(() => sleep(50))
      }
      const exit = yield* Effect.promise(() => service.exited)
      // The signal lands within a few ms: from the first 503 on, readiness never answers 200 again.
      const flipped = seen.findIndex((s) => s.ready === 503)
      const draining = seen.slice(flipped).filter((s) => s.ready !== 0)
      const closedAt = seen.find((s) => s.ready === 0 && s.live === 0)?.at
      yield* Effect.logInfo("readiness drain: figures").pipe(
        Effect.annotateLogs({ flippedAtMs: seen[flipped]?.at ?? "never", answeredWhileDraining: draining.length, closedAtMs: closedAt ?? "never", exitCode: String(exit.code) })
      )
      expect(flipped).toBeGreaterThanOrEqual(0)
      // Within the first half of the delay (a few ms on a quiet machine).
      expect(seen[flipped]!.at).toBeLessThan(delayMs / 2)
      // Answered while draining, every time with 503 for readiness and 200 for liveness until the
      // delay ends; from then to the port's close, a request may meet the closing server's
      // own 503 ("service is shutting down", main.ts), liveness included, or find the port
      // closed between the two probes sent together (liveness 0 beside readiness's 503).
      expect(draining.length).toBeGreaterThan(5)
      expect(draining.every((s) => s.ready === 503 && (s.live === 200 || (s.at >= delayMs && (s.live === 503 || s.live === 0)))), JSON.stringify(seen))
        .toBe(true)
      expect(draining.filter((s) => s.at < delayMs).every((s) => s.live === 200)).toBe(true)
      // The port closed only after the delay, and the exit was clean.
      expect(closedAt).toBeDefined()
      expect(closedAt!).toBeGreaterThanOrEqual(delayMs - 200)
      expect(exit.code).toBe(0)
    }), { timeout: 120_000 })
})
