import * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
import { Conflict, NotFound } from "../Domain/Errors.js";
import type { FaultClass, RunRow } from "../Runs/Run.js";
import { RunEvents } from "./RunEvents.js";
/** A polled run with the summary of its trigger the worker needs. */
export interface PolledRow extends RunRow {
    readonly trigger_name: string;
    readonly trigger_input: unknown;
}
export interface Completion {
    readonly status: "succeeded" | "failed";
    readonly shortMessage: string | null;
    readonly errorMessage: string | null;
    readonly costUsd: string | null;
    readonly faultClass: FaultClass;
}
/** A run a batched transition could not move: not the worker's (404) or in the wrong state (409). */
export interface Rejected {
    readonly runId: string;
    readonly status: 404 | 409;
    readonly error: string;
}
/** A rejection as the error a single call answers. */
export declare const rejectionError: (rejected: Rejected) => NotFound | Conflict;
/** The outcome of a terminal transition: the ended run and the retry it spawned, if any. */
export interface Terminal {
    readonly run: RunRow;
    readonly retry: RunRow | undefined;
}
type WorkerStep = "claim" | "start" | "heartbeat" | "complete";
declare const Transitions_base: Effect.Service.Class<Transitions, "Scheduler/Transitions", {
    readonly effect: Effect.Effect<{
        readonly claimMany: (workerId: string, max: number, start?: boolean) => Effect.Effect<ReadonlyArray<PolledRow>>;
        readonly stepMany: (workerId: string, runIds: ReadonlyArray<string>, step: Exclude<WorkerStep, "complete">) => Effect.Effect<{
            readonly moved: ReadonlyArray<RunRow>;
            readonly rejected: ReadonlyArray<Rejected>;
        }>;
        readonly assignedTo: (workerId: string, max: number) => Effect.Effect<ReadonlyArray<PolledRow>>;
        readonly completeMany: (workerId: string, items: ReadonlyArray<{
            readonly runId: string;
            readonly completion: Completion;
        }>) => Effect.Effect<{
            readonly ended: ReadonlyArray<Terminal>;
            readonly rejected: ReadonlyArray<Rejected>;
        }>;
        readonly timeOut: (runId: string, at?: number) => Effect.Effect<Terminal | undefined>;
        readonly timeOutMany: (items: ReadonlyArray<{
            readonly runId: string;
            readonly at: number;
        }>) => Effect.Effect<ReadonlyArray<RunRow>>;
    }, never, SqlClient.SqlClient | RunEvents>;
}>;
/**
 * The run state machine after assignment. Every transition is one conditional
 * UPDATE ... RETURNING: the row count decides, so a transition from the wrong
 * state changes nothing, and with two instances each happens exactly once.
 * A deadline that has passed counts as a wrong state: the supervisor is about
 * to time the run out, and a late heartbeat must not resurrect it.
 */
export declare class Transitions extends Transitions_base {
}
export {};
//# sourceMappingURL=Transitions.d.ts.map