import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { hotSpan } from "../../src/Config/Tracing.js"

describe("hotSpan", () => {
  const inner = hotSpan("Hot.test", { runId: "r1" })(Effect.currentSpan)

  it.effect("builds the span, with its attributes, when tracing is on", () =>
    Effect.gen(function*() {
      const span = yield* inner
      expect(span.name).toBe("Hot.test")
      expect(span.attributes.get("runId")).toBe("r1")
    }))

  it.effect("builds nothing when tracing is off (TRACING unset)", () =>
    Effect.gen(function*() {
      const span = yield* inner.pipe(Effect.option, Effect.withTracerEnabled(false))
      expect(Option.isNone(span)).toBe(true)
    }))
})
