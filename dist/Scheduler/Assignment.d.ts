import * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
import { SchedulerConfig } from "./SchedulerConfig.js";
import { Wakeups } from "./Wakeups.js";
/** A run that was just given a claim deadline, for the supervisor. */
export interface Deadline {
    readonly id: string;
    readonly environment_id: string;
    readonly deadline_at: Date;
}
declare const Assignment_base: Effect.Service.Class<Assignment, "Scheduler/Assignment", {
    readonly effect: Effect.Effect<{
        readonly assignQueued: (environmentId?: string) => Effect.Effect<ReadonlyArray<Deadline>>;
        readonly releaseExpired: (runId: string) => Effect.Effect<string | undefined>;
        readonly releaseOffline: Effect.Effect<readonly string[], never, never>;
        readonly unclaim: (runId: string, workerId: string) => Effect.Effect<Date | undefined>;
    }, never, SqlClient.SqlClient | SchedulerConfig | Wakeups>;
}>;
/**
 * Moves runs between `queued` and `assigned`. Every change is a conditional
 * UPDATE under `FOR UPDATE SKIP LOCKED`, so two instances assigning at once
 * never hand one run out twice.
 */
export declare class Assignment extends Assignment_base {
}
export {};
//# sourceMappingURL=Assignment.d.ts.map