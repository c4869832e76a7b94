import * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
import type { Actor } from "../Auth/Security.js";
import type { PolledRow } from "../Scheduler/Transitions.js";
import { type RunRow, type RunStatus } from "./Run.js";
/** The parts of a live (not deleted) trigger a run needs. */
export interface TriggerSnapshot {
    readonly id: string;
    readonly environment_id: string;
    readonly input: unknown;
}
export interface RunFilter {
    readonly triggerId?: string | undefined;
    readonly environmentId?: string | undefined;
    readonly status?: RunStatus | undefined;
    readonly from?: Date | undefined;
    readonly to?: Date | undefined;
    readonly workerId?: string | undefined;
    /** Keyset: only ids below this one (the previous page's last). */
    readonly before?: string | undefined;
    readonly limit: number;
}
export interface Created {
    /** The run as requested (a new run reads `queued`, as the contract answers it). */
    readonly run: RunRow;
    /** False when an earlier request with the same Idempotency-Key made the run. */
    readonly created: boolean;
    /** Where the new run went in the same statement, when it was assigned at once. */
    readonly assigned?: {
        readonly workerId: string;
        readonly deadlineAt: Date;
        /** Claimed outright for one of `Placement.claimFor`'s polls: the row to hand it. */
        readonly claimed: PolledRow | undefined;
    } | undefined;
}
/** One run request: its input (the trigger's when undefined), Idempotency-Key and who asked. */
export interface CreateRequest {
    readonly input: {
        readonly value: unknown;
    } | undefined;
    readonly idempotencyKey: string | undefined;
    readonly actor: Actor;
}
/**
 * The scheduler's rules, for a new run to be assigned in the statement that
 * creates it: to the trigger's pinned worker or else the least-loaded online
 * worker of the environment, with fewer than `maxAssignedPerWorker` unclaimed
 * runs; and only when nothing older is queued there, so no run jumps the queue.
 */
export interface Placement {
    readonly claimTimeoutSeconds: number;
    readonly workerOfflineAfterSeconds: number;
    readonly maxAssignedPerWorker: number;
    /** Workers seen within this many seconds are preferred (see `SchedulerConfig.activeWorkerSeconds`). */
    readonly activeWorkerSeconds: number;
    /** The channel that wakes long-polling workers on every instance. */
    readonly channel: string;
    /**
     * Workers with a `claim=true` poll waiting on this instance: a run placed
     * on one of them is claimed in the same statement, to be handed to the poll.
     */
    readonly claimFor?: ReadonlyArray<string>;
}
declare const RunsRepo_base: Effect.Service.Class<RunsRepo, "Runs/Repo", {
    readonly effect: Effect.Effect<{
        readonly findTrigger: (triggerId: string) => Effect.Effect<TriggerSnapshot | undefined>;
        readonly createMany: (triggerId: string, requests: ReadonlyArray<CreateRequest>, options?: {
            /** Only a trigger of this environment (the caller's, when it is known without a lookup). */
            readonly environmentId?: string | undefined;
            /** Assign the runs at once where the scheduler's rules allow. */
            readonly placement?: Placement | undefined;
        }) => Effect.Effect<ReadonlyArray<Created | undefined>>;
        readonly list: (filter: RunFilter) => Effect.Effect<ReadonlyArray<RunRow>>;
    }, never, SqlClient.SqlClient>;
}>;
/** Runs as records: creation (with idempotency and audit) and listings. */
export declare class RunsRepo extends RunsRepo_base {
}
export {};
//# sourceMappingURL=RunsRepo.d.ts.map