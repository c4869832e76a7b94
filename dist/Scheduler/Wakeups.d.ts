import * as Effect from "effect/Effect";
import type * as Scope from "effect/Scope";
import { Notifications } from "../Db/Notifications.js";
import type { PolledRow } from "./Transitions.js";
/** Postgres channel carrying the id of a worker that was just given runs. */
export declare const assignedChannel = "pts_run_assigned";
/**
 * A `claim=true` poll waiting on this instance. Run creation may claim a new
 * run for it in the creating statement and hand the row over here, which
 * spares the woken poll its claim statement (the last round trip between a
 * run request and an idle worker receiving it).
 *
 * open → reserved (a creating statement may claim a run for it) → open again,
 * or done. Done: handed a run, woken, timed out, or withdrawn. A reserved
 * offer is never dropped: whoever waits on it waits for the statement.
 */
export interface Offer {
    readonly workerId: string;
    readonly environmentId: string;
    state: "open" | "reserved" | "done";
    /** Asked to finish (woken, timed out, withdrawn) while reserved. */
    finishing: boolean;
    /** The poll went away (interrupted) while reserved: nothing may be handed to it. */
    abandoned: boolean;
    rows: ReadonlyArray<PolledRow>;
    resume: (() => void) | undefined;
}
/** The offers a creating statement may claim for; settle it once the statement has ended. */
export interface Reservation {
    readonly workerIds: ReadonlyArray<string>;
    /**
     * Hands each of `rows` (claimed for `row.worker_id`) to one of that
     * worker's polls; answers the rows no poll was left to take.
     */
    readonly settle: (rows: ReadonlyArray<PolledRow>) => ReadonlyArray<PolledRow>;
}
declare const Wakeups_base: Effect.Service.Class<Wakeups, "Scheduler/Wakeups", {
    readonly scoped: Effect.Effect<{
        readonly wake: (workerId: string) => Effect.Effect<void>;
        readonly subscribe: (workerId: string) => Effect.Effect<Effect.Effect<void>, never, Scope.Scope>;
        readonly generationOf: (workerId: string) => number;
        readonly offer: (workerId: string, environmentId: string, since: number) => Effect.Effect<Offer | undefined>;
        readonly awaitOffer: (offer: Offer) => Effect.Effect<ReadonlyArray<PolledRow>>;
        readonly finishOffer: (offer: Offer) => Effect.Effect<void>;
        readonly abandon: (offer: Offer) => Effect.Effect<void>;
        readonly reserve: (environmentId: string | undefined) => Reservation;
        readonly waitingWorkers: () => ReadonlyArray<string>;
    }, never, Scope.Scope | Notifications>;
}>;
/**
 * Wakes long-polling workers as soon as a run is assigned to them: at once for
 * assignments made by this instance, and through LISTEN/NOTIFY for those made
 * by another instance sharing the database. A waiting poll is one `Deferred`
 * (or one `Offer`) in a map, so thousands of idle workers cost next to nothing.
 */
export declare class Wakeups extends Wakeups_base {
}
export {};
//# sourceMappingURL=Wakeups.d.ts.map