import * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import * as Either from "effect/Either";
import * as Schedule from "effect/Schedule";
import * as ScheduleDecision from "effect/ScheduleDecision";
/** At most this many attempts per delivery, in all (across restarts too). */
export const maxAttempts = 3;
const base = Duration.seconds(1);
const factor = 4;
/**
 * The contract's policy: exponential backoff of 1 s, 4 s, 16 s between
 * attempts, cut by the 3-attempt cap (so in practice 1 s, then 4 s), retrying
 * only what may succeed later (5xx, 408, 429, network errors, timeouts).
 *
 * `attemptsMade` is how many attempts an earlier process already made (the
 * count kept on the outbox row): the schedule resumes where that one stopped,
 * with the same delays and the same cap.
 */
export const retrySchedule = (attemptsMade) => Schedule.exponential(Duration.times(base, factor ** attemptsMade), factor).pipe(Schedule.intersect(Schedule.recurs(Math.max(0, maxAttempts - 1 - attemptsMade))), Schedule.whileInput((failure) => failure._tag === "Retryable"));
/** Attempts until delivered, a permanent failure, or the cap; answers the last attempt's result. */
export const runWithRetries = (loop) => Effect.suspend(() => {
    let attempts = loop.attemptsMade;
    const attempt = Effect.suspend(() => {
        attempts++;
        return loop.attempt;
    });
    return Effect.flatMap(attempt, (first) => {
        // Nearly every delivery ends at its first attempt: only a retryable
        // failure builds the schedule (hundreds of deliveries a second each
        // paid for one they never used).
        if (first._tag !== "Retryable")
            return Effect.succeed({ result: first, attempts });
        // The schedule sees the first attempt's failure as its first input.
        let replay = first;
        const once = Effect.suspend(() => {
            if (replay !== undefined) {
                const failure = replay;
                replay = undefined;
                return Effect.fail(failure);
            }
            return Effect.flatMap(attempt, (result) => result._tag === "Delivered" ? Effect.succeed(result) : Effect.fail(result));
        });
        const schedule = retrySchedule(loop.attemptsMade).pipe(Schedule.intersect(Schedule.identity()), Schedule.onDecision(([[delay], failure], decision) => ScheduleDecision.isContinue(decision) ? loop.onRetry(attempts, failure, delay) : Effect.void));
        return Effect.retry(once, schedule).pipe(Effect.either, Effect.map((either) => ({ result: Either.merge(either), attempts })));
    });
});
//# sourceMappingURL=Retry.js.map