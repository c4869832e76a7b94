import * as Effect from "effect/Effect";
import * as Schedule from "effect/Schedule";
import type { PipelineClient } from "../Client.js";
import type { Completions } from "./Completions.js";
import { WorkerUnauthorized } from "./Errors.js";
import type { WorkerOptions, WorkerRun } from "./Types.js";
/** Requests a run transition: true once done; false when refused (404/409: the run is no longer ours to move). */
export declare const transition: (call: Effect.Effect<unknown, unknown>, what: string, retries: Schedule.Schedule<unknown, unknown>) => Effect.Effect<boolean, WorkerUnauthorized>;
/** How many times a complete is retried after transient failures. */
export declare const completeRetries: (schedule: Schedule.Schedule<unknown, unknown>) => Schedule.Schedule<void, unknown, never>;
export declare const makeRunProcessor: <E, R>(client: PipelineClient, workerId: string, options: WorkerOptions<E, R>, fraction: number, schedule: Schedule.Schedule<unknown, unknown>, 
/** Coalesces completes into batched calls (with `claimOnPoll`); without it, each run completes on its own. */
completions?: Completions | undefined) => (run: WorkerRun) => Effect.Effect<void, WorkerUnauthorized, R>;
//# sourceMappingURL=RunProcessor.d.ts.map