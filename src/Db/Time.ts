import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"

/**
 * The service's "now", as an ISO timestamp for SQL parameters. Every
 * timestamp and deadline the run store and the scheduler write is computed from this (never
 * from the database's `now()`), so a `TestClock` drives timeouts in tests and
 * the sleep of a supervision fiber and the deadline it enforces share one clock.
 */
export const nowIso: Effect.Effect<string> = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())

export const toMillis = (value: Date | string): number => (value instanceof Date ? value : new Date(value)).getTime()
