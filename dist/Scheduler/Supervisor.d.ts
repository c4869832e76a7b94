import * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
import type { Created, Placement } from "../Runs/RunsRepo.js";
import { Assignment, type Deadline } from "./Assignment.js";
import { SchedulerConfig } from "./SchedulerConfig.js";
import { Transitions } from "./Transitions.js";
import { Wakeups } from "./Wakeups.js";
declare const Supervisor_base: Effect.Service.Class<Supervisor, "Scheduler/Supervisor", {
    readonly scoped: Effect.Effect<{
        readonly watch: (runId: string, deadlineMs: number) => Effect.Effect<void>;
        readonly watchAll: (runs: ReadonlyArray<{
            readonly id: string;
            readonly deadline_at: Date | null;
        }>) => Effect.Effect<void, never, never>;
        readonly release: (runId: string) => Effect.Effect<void>;
        readonly assignAndWatch: (environmentId?: string) => Effect.Effect<ReadonlyArray<Deadline>>;
        readonly placement: Placement;
        readonly creatingMany: <E, R>(environmentId: string | undefined, create: (placement: Placement) => Effect.Effect<ReadonlyArray<Created | undefined>, E, R>) => Effect.Effect<ReadonlyArray<Created | undefined>, E, R>;
        readonly size: Effect.Effect<number, never, never>;
    }, never, SqlClient.SqlClient | import("effect/Scope").Scope | Transitions | SchedulerConfig | Wakeups | Assignment>;
}>;
/**
 * One fiber per non-terminal run with a deadline, in a `FiberMap` keyed by run
 * id. The fiber reads the run's stored deadline, sleeps until it, re-reads it
 * (a heartbeat only moves `deadline_at`, it never touches the fiber) and, when
 * it is really due, applies the transition with a conditional UPDATE: so a
 * supervised run costs one parked fiber and one timer, and two instances
 * supervising the same run still transition it exactly once.
 *
 * Each instance sweeps the database every `sweepIntervalMillis`: it supervises
 * runs whose deadline falls within `sweepHorizonMillis` (runs another instance
 * created, or left behind when it stopped), assigns queued runs and releases
 * runs of offline workers. At start it supervises every non-terminal run.
 */
export declare class Supervisor extends Supervisor_base {
}
export {};
//# sourceMappingURL=Supervisor.d.ts.map