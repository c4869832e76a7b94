import * as Effect from "effect/Effect";
/**
 * The scheduler's "now", as an ISO timestamp for SQL parameters. Every
 * timestamp and deadline the scheduler writes is computed from this (never
 * from the database's `now()`), so a `TestClock` drives timeouts in tests and
 * the sleep of a supervision fiber and the deadline it enforces share one clock.
 */
export declare const nowIso: Effect.Effect<string>;
export declare const toMillis: (value: Date | string) => number;
//# sourceMappingURL=Time.d.ts.map