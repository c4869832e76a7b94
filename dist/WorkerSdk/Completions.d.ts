import * as Effect from "effect/Effect";
import * as Schedule from "effect/Schedule";
import type * as Scope from "effect/Scope";
import type { PipelineClient } from "../Client.js";
import { WorkerUnauthorized } from "./Errors.js";
/** What `complete` sends for one run (the body of `POST .../runs/{runId}/complete`). */
export type CompletePayload = Parameters<PipelineClient["workerProtocol"]["complete"]>[0]["payload"];
/**
 * Completes runs, coalescing: the completes that arrive while one call is in
 * flight go out together in the next, as one `POST /workers/{id}/runs/complete`
 * (at most 100 per call). A lone complete is sent at once, so nothing waits
 * for a batch to fill; under load, each call carries what finished meanwhile.
 */
export interface Completions {
    /** True when the service recorded it; false when it refused it (the run is no longer ours) or never answered. */
    readonly complete: (runId: string, payload: CompletePayload) => Effect.Effect<boolean, WorkerUnauthorized>;
}
/** The largest batch the service takes. */
export declare const maxBatch = 100;
/**
 * The sender runs in the enclosing scope: create it before anything whose
 * shutdown still completes runs, so it stops after them.
 * `single` completes one run on its own: when the service refuses a whole
 * batch as invalid (one handler's bad `costUsd`), each run is sent alone, so
 * only the bad one is refused.
 */
export declare const make: (client: PipelineClient, workerId: string, retries: Schedule.Schedule<unknown, unknown>, single: (runId: string, payload: CompletePayload) => Effect.Effect<boolean, WorkerUnauthorized>) => Effect.Effect<Completions, never, Scope.Scope>;
//# sourceMappingURL=Completions.d.ts.map