import * as Layer from "effect/Layer";
import { Assignment } from "./Assignment.js";
import { Presence } from "./Presence.js";
import { RunEvents } from "./RunEvents.js";
import * as SchedulerConfig from "./SchedulerConfig.js";
import { Supervisor } from "./Supervisor.js";
import { Transitions } from "./Transitions.js";
import { Wakeups } from "./Wakeups.js";
import { WorkerProtocol } from "./WorkerProtocol.js";
/**
 * The scheduler core given its config: assignment, the worker protocol, run
 * supervision (a background fiber per run plus the sweep, started with the
 * layer and interrupted when its scope closes) and the terminal-run stream.
 * The database (`SqlClient`, `Notifications`) stays a requirement, so the
 * embedding program chooses it; the schema comes from `Db/Migrations`.
 */
export const layerWithoutConfig = WorkerProtocol.Default.pipe(Layer.provideMerge(Layer.merge(Supervisor.Default, Presence.Default)), Layer.provideMerge(Layer.mergeAll(Assignment.Default, Transitions.Default)), Layer.provideMerge(Layer.mergeAll(Wakeups.Default, RunEvents.Default)));
/** The scheduler with its config derived from the service's `AppConfig`. */
export const layer = layerWithoutConfig.pipe(Layer.provide(SchedulerConfig.layer));
/** The scheduler with `SchedulerConfig.defaults` overridden by `options`. */
export const layerWith = (options = {}) => layerWithoutConfig.pipe(Layer.provide(SchedulerConfig.layerWith(options)));
//# sourceMappingURL=Scheduler.js.map