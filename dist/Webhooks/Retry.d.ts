import * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import * as Schedule from "effect/Schedule";
import type { AttemptResult } from "./Sender.js";
/** At most this many attempts per delivery, in all (across restarts too). */
export declare const maxAttempts = 3;
export type Failure = Exclude<AttemptResult, {
    readonly _tag: "Delivered";
}>;
export type Delivered = Extract<AttemptResult, {
    readonly _tag: "Delivered";
}>;
/**
 * The contract's policy: exponential backoff of 1 s, 4 s, 16 s between
 * attempts, cut by the 3-attempt cap (so in practice 1 s, then 4 s), retrying
 * only what may succeed later (5xx, 408, 429, network errors, timeouts).
 *
 * `attemptsMade` is how many attempts an earlier process already made (the
 * count kept on the outbox row): the schedule resumes where that one stopped,
 * with the same delays and the same cap.
 */
export declare const retrySchedule: (attemptsMade: number) => Schedule.Schedule<[Duration.Duration, number], Failure>;
export interface RetryLoop {
    readonly attemptsMade: number;
    /** One attempt (the caller bounds its concurrency and duration). */
    readonly attempt: Effect.Effect<AttemptResult>;
    /**
     * Runs after attempt number `attempts` failed and before the backoff sleep,
     * so the attempt count and due time are durable before we wait.
     */
    readonly onRetry: (attempts: number, failure: Failure, delay: Duration.Duration) => Effect.Effect<void>;
}
export interface LoopResult {
    readonly result: AttemptResult;
    /** Attempts made in all, including those of earlier processes. */
    readonly attempts: number;
}
/** Attempts until delivered, a permanent failure, or the cap; answers the last attempt's result. */
export declare const runWithRetries: (loop: RetryLoop) => Effect.Effect<LoopResult>;
//# sourceMappingURL=Retry.d.ts.map