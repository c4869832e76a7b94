import type * as SqlClient from "@effect/sql/SqlClient"
import * as Layer from "effect/Layer"
import type { AppConfig } from "../Config/AppConfig.js"
import type { Notifications } from "../Db/Notifications.js"
import { Assignment } from "./Assignment.js"
import { Presence } from "./Presence.js"
import { Revocation } from "./Revocation.js"
import { RunEvents } from "./RunEvents.js"
import { RunFeed } from "./RunFeed.js"
import * as SchedulerConfig from "./SchedulerConfig.js"
import { Supervisor } from "./Supervisor.js"
import { Transitions } from "./Transitions.js"
import { Wakeups } from "./Wakeups.js"
import { WorkerProtocol } from "./WorkerProtocol.js"

/** Every service of the scheduler core. */
export type Services = WorkerProtocol | Revocation | Supervisor | Assignment | Transitions | Wakeups | RunEvents | RunFeed

/**
 * The scheduler core given its config: assignment, the worker protocol, run
 * supervision (a background fiber per run plus the sweep, started with the
 * layer and interrupted when its scope closes) and the terminal-run stream.
 * The database (`SqlClient`, `Notifications`) stays a requirement, so the
 * embedding program chooses it; the schema comes from `Db/Migrations`.
 */
export const layerWithoutConfig: Layer.Layer<Services, never, SqlClient.SqlClient | Notifications | SchedulerConfig.SchedulerConfig> =
  Layer.merge(WorkerProtocol.Default, Revocation.Default).pipe(
    Layer.provideMerge(Layer.merge(Supervisor.Default, Presence.Default)),
    Layer.provideMerge(Layer.mergeAll(Assignment.Default, Transitions.Default)),
    Layer.provideMerge(Layer.mergeAll(Wakeups.Default, RunEvents.Default, RunFeed.Default))
  )

/** The scheduler with its config derived from the service's `AppConfig`. */
export const layer: Layer.Layer<Services, never, SqlClient.SqlClient | Notifications | AppConfig> = layerWithoutConfig.pipe(
  Layer.provide(SchedulerConfig.layer)
)

/** The scheduler with `SchedulerConfig.defaults` overridden by `options`. */
export const layerWith = (
  options: Partial<SchedulerConfig.SchedulerConfigShape> = {}
): Layer.Layer<Services, never, SqlClient.SqlClient | Notifications> =>
  layerWithoutConfig.pipe(Layer.provide(SchedulerConfig.layerWith(options)))
