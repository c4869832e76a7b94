import type * as SqlClient from "@effect/sql/SqlClient";
import * as Layer from "effect/Layer";
import type { AppConfig } from "../Config/AppConfig.js";
import type { Notifications } from "../Db/Notifications.js";
import { Assignment } from "./Assignment.js";
import { RunEvents } from "./RunEvents.js";
import * as SchedulerConfig from "./SchedulerConfig.js";
import { Supervisor } from "./Supervisor.js";
import { Transitions } from "./Transitions.js";
import { Wakeups } from "./Wakeups.js";
import { WorkerProtocol } from "./WorkerProtocol.js";
/** Every service of the scheduler core. */
export type Services = WorkerProtocol | Supervisor | Assignment | Transitions | Wakeups | RunEvents;
/**
 * The scheduler core given its config: assignment, the worker protocol, run
 * supervision (a background fiber per run plus the sweep, started with the
 * layer and interrupted when its scope closes) and the terminal-run stream.
 * The database (`SqlClient`, `Notifications`) stays a requirement, so the
 * embedding program chooses it; the schema comes from `Db/Migrations`.
 */
export declare const layerWithoutConfig: Layer.Layer<Services, never, SqlClient.SqlClient | Notifications | SchedulerConfig.SchedulerConfig>;
/** The scheduler with its config derived from the service's `AppConfig`. */
export declare const layer: Layer.Layer<Services, never, SqlClient.SqlClient | Notifications | AppConfig>;
/** The scheduler with `SchedulerConfig.defaults` overridden by `options`. */
export declare const layerWith: (options?: Partial<SchedulerConfig.SchedulerConfigShape>) => Layer.Layer<Services, never, SqlClient.SqlClient | Notifications>;
//# sourceMappingURL=Scheduler.d.ts.map