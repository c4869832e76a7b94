import * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
import { Wakeups } from "./Wakeups.js";
declare const Presence_base: Effect.Service.Class<Presence, "Scheduler/Presence", {
    readonly scoped: Effect.Effect<{}, never, SqlClient.SqlClient | import("effect/Scope").Scope | Wakeups>;
}>;
/**
 * Keeps the workers whose polls wait on this instance "seen": a long poll
 * records the worker's contact when it arrives, and may then wait 30 s. Every
 * two seconds one statement touches every waiting worker (at most once a
 * second each, as request contact is), so on every instance a waiting worker
 * reads as active (`SchedulerConfig.activeWorkerSeconds`) and is preferred for
 * new runs over a worker that registered and stopped polling.
 */
export declare class Presence extends Presence_base {
}
export {};
//# sourceMappingURL=Presence.d.ts.map