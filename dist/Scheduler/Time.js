import * as Clock from "effect/Clock";
import * as Effect from "effect/Effect";
/**
 * The scheduler's "now", as an ISO timestamp for SQL parameters. Every
 * timestamp and deadline the scheduler writes is computed from this (never
 * from the database's `now()`), so a `TestClock` drives timeouts in tests and
 * the sleep of a supervision fiber and the deadline it enforces share one clock.
 */
export const nowIso = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString());
export const toMillis = (value) => (value instanceof Date ? value : new Date(value)).getTime();
//# sourceMappingURL=Time.js.map