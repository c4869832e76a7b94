import * as EffectVitest from "@effect/vitest"
import { it } from "vitest"

/**
 * Before each test file (a vitest setup file): `it.effect`, `it.scoped` and
 * the rest as `@effect/vitest` exports them. Its `layer(...)` assigns the
 * block's own methods (that layer's runtime, with or without the test
 * services) onto vitest's one shared `it` object and never puts them back;
 * with test files sharing a worker's module graph (`isolate: false`), the
 * next file's `it.effect` then ran on the previous file's layer, on the live
 * clock (`TestClock.adjust is not a function`). Fixed upstream in the
 * Effect 4 line (effect-smol #2177); this restores them until then.
 */
Object.assign(it, {
  effect: EffectVitest.effect,
  scoped: EffectVitest.scoped,
  live: EffectVitest.live,
  scopedLive: EffectVitest.scopedLive,
  flakyTest: EffectVitest.flakyTest,
  layer: EffectVitest.layer,
  prop: EffectVitest.prop
})
