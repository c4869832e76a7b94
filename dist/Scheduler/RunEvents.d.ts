import * as Effect from "effect/Effect";
import * as Stream from "effect/Stream";
import type { Run } from "../Runs/Run.js";
declare const RunEvents_base: Effect.Service.Class<RunEvents, "Scheduler/RunEvents", {
    readonly scoped: Effect.Effect<{
        readonly publish: (run: Run) => Effect.Effect<void>;
        readonly terminal: Stream.Stream<{
            readonly status: "queued" | "assigned" | "claimed" | "running" | "succeeded" | "failed" | "timed_out";
            readonly id: string;
            readonly createdAt: Date;
            readonly environmentId: string;
            readonly triggerId: string;
            readonly attempt: number;
            readonly retryOfRunId: string | null;
            readonly workerId: string | null;
            readonly input: unknown;
            readonly durationMs: number | null;
            readonly shortMessage: string | null;
            readonly errorMessage: string | null;
            readonly costUsd: string | null;
            readonly faultClass: "infra" | "client" | "none" | null;
            readonly assignedAt: Date | null;
            readonly claimedAt: Date | null;
            readonly startedAt: Date | null;
            readonly lastHeartbeatAt: Date | null;
            readonly endedAt: Date | null;
        }, never, never>;
        readonly subscribe: Effect.Effect<import("effect/Queue").Dequeue<{
            readonly status: "queued" | "assigned" | "claimed" | "running" | "succeeded" | "failed" | "timed_out";
            readonly id: string;
            readonly createdAt: Date;
            readonly environmentId: string;
            readonly triggerId: string;
            readonly attempt: number;
            readonly retryOfRunId: string | null;
            readonly workerId: string | null;
            readonly input: unknown;
            readonly durationMs: number | null;
            readonly shortMessage: string | null;
            readonly errorMessage: string | null;
            readonly costUsd: string | null;
            readonly faultClass: "infra" | "client" | "none" | null;
            readonly assignedAt: Date | null;
            readonly claimedAt: Date | null;
            readonly startedAt: Date | null;
            readonly lastHeartbeatAt: Date | null;
            readonly endedAt: Date | null;
        }>, never, import("effect/Scope").Scope>;
    }, never, import("effect/Scope").Scope>;
}>;
/**
 * Terminal runs of this instance, for an embedding Effect program:
 * `Stream.runForEach(runEvents.terminal, ...)`. Published after the terminal
 * transaction commits; a slow subscriber never slows the scheduler (each
 * subscriber has its own unbounded buffer, and nothing waits for it).
 */
export declare class RunEvents extends RunEvents_base {
}
export {};
//# sourceMappingURL=RunEvents.d.ts.map