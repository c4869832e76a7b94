import * as Effect from "effect/Effect";
import { Supervisor } from "../Scheduler/Supervisor.js";
import { type Created, type CreateRequest, RunsRepo } from "./RunsRepo.js";
/** The most runs one creating statement inserts. */
export declare const maxRunsPerStatement = 100;
declare const RunRequests_base: Effect.Service.Class<RunRequests, "Runs/RunRequests", {
    readonly scoped: Effect.Effect<{
        readonly request: (triggerId: string, environmentId: string, request: CreateRequest) => Effect.Effect<Created | undefined>;
    }, never, import("effect/Scope").Scope | RunsRepo | Supervisor>;
}>;
/**
 * Run requests, committed in groups (`Concurrency/Grouped`). While a
 * trigger's creating statement is in flight, further requests for that
 * trigger wait, and the next statement creates all of them at once (up to
 * `maxRunsPerStatement`): one round trip, one lock on the trigger row and one
 * commit for the lot, instead of one each. A request that finds nothing in
 * flight goes at once, so grouping adds no wait at idle.
 *
 * Each request still gets its own answer: its run (placed, handed to a
 * waiting poll or queued, as `RunsRepo.createMany` and
 * `Supervisor.creatingMany` decide), the earlier run for a repeated
 * Idempotency-Key, or undefined when the trigger is gone.
 */
export declare class RunRequests extends RunRequests_base {
}
export {};
//# sourceMappingURL=RunRequests.d.ts.map