import * as EffectVitest from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"
import { expect, it as vitestIt } from "vitest"

/**
 * Test files share their worker's modules (vitest.config.ts: isolate false),
 * and so vitest's one `it` object. `@effect/vitest`'s `layer(...)` assigns
 * its block's methods onto it and never puts them back; a file that runs
 * after one with a layer block must still start with `it.effect` as
 * `@effect/vitest` exports it (test/support/ResetIt.ts, a setup file).
 */

// Read as this file is collected, before its own layer block below: what an
// earlier file of this worker left behind, after the setup file ran.
const atStart = { ...(vitestIt as unknown as Record<string, unknown>) }

EffectVitest.it.effect("it.effect at the top of a file runs on the TestClock", () =>
  Effect.gen(function*() {
    const before = yield* Clock.currentTimeMillis
    yield* TestClock.adjust("1 hour")
    expect((yield* Clock.currentTimeMillis) - before).toBe(3_600_000)
  }))

vitestIt("every file starts with @effect/vitest's own methods on the shared it", () => {
  expect(atStart.effect).toBe(EffectVitest.effect)
  expect(atStart.scoped).toBe(EffectVitest.scoped)
  expect(atStart.live).toBe(EffectVitest.live)
  expect(atStart.layer).toBe(EffectVitest.layer)
  expect(atStart.prop).toBe(EffectVitest.prop)
  expect(atStart.flakyTest).toBe(EffectVitest.flakyTest)
})

// A layer block without the test services, as many files have: it leaves its
// own `it.effect` on the shared object for whichever file comes next.
EffectVitest.layer(Layer.empty, { excludeTestServices: true })("a layer block without the test services", (it) => {
  it.effect("runs on the live clock", () =>
    Effect.gen(function*() {
      const clock = yield* Effect.clock
      expect("adjust" in clock).toBe(false)
    }))
})
