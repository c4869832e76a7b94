import * as Effect from "effect/Effect";
import type { Conflict, NotFound } from "../Domain/Errors.js";
import type { FaultClass, RunRow } from "../Runs/Run.js";
import { Supervisor } from "./Supervisor.js";
import { type PolledRow, type Rejected, type Terminal, Transitions } from "./Transitions.js";
import { Wakeups } from "./Wakeups.js";
export interface PollOptions {
    /** Seconds to wait for an assignment when there is none yet (0..30). */
    readonly wait: number;
    /** Claim the runs in the same call (the fast-worker extension). */
    readonly claim: boolean;
    /** How many runs to claim at most. */
    readonly max: number;
    /** Start the claimed runs too (`claim=true&start=true`): they come back `running`. */
    readonly start?: boolean | undefined;
}
export interface CompleteRequest {
    readonly status: "succeeded" | "failed";
    readonly stdout?: string | undefined;
    readonly stderr?: string | undefined;
    readonly costUsd?: string | undefined;
    readonly faultClass?: FaultClass | undefined;
}
/** A poll answers at most this many unclaimed runs. */
export declare const pollPageSize = 100;
export declare const shortMessageChars = 500;
export declare const errorMessageBytes: number;
/** The first `n` characters (code points, so a surrogate pair is never cut in half). */
export declare const firstChars: (text: string, n: number) => string;
/** At most `max` bytes of UTF-8, cut on a character boundary. */
export declare const firstBytes: (text: string, max: number) => string;
declare const WorkerProtocol_base: Effect.Service.Class<WorkerProtocol, "Scheduler/WorkerProtocol", {
    readonly scoped: Effect.Effect<{
        readonly poll: (workerId: string, environmentId: string, options: PollOptions) => Effect.Effect<ReadonlyArray<PolledRow>>;
        readonly claim: (workerId: string, runId: string) => Effect.Effect<RunRow, NotFound | Conflict>;
        readonly start: (workerId: string, runId: string) => Effect.Effect<RunRow, NotFound | Conflict>;
        readonly heartbeat: (workerId: string, runId: string) => Effect.Effect<RunRow, NotFound | Conflict>;
        readonly complete: (workerId: string, runId: string, request: CompleteRequest) => Effect.Effect<Terminal, NotFound | Conflict>;
        readonly completeMany: (workerId: string, requests: ReadonlyArray<CompleteRequest & {
            readonly runId: string;
        }>) => Effect.Effect<{
            readonly ended: ReadonlyArray<Terminal>;
            readonly rejected: ReadonlyArray<Rejected>;
        }>;
    }, never, import("effect/Scope").Scope | Transitions | Wakeups | Supervisor>;
}>;
/**
 * The worker side of the scheduler: poll (with long-poll and claim-on-poll),
 * claim, start, heartbeat and complete, each followed by the supervision the
 * new state needs.
 */
export declare class WorkerProtocol extends WorkerProtocol_base {
}
export {};
//# sourceMappingURL=WorkerProtocol.d.ts.map