import type * as SqlClient from "@effect/sql/SqlClient"
import * as Layer from "effect/Layer"
import type { Notifications } from "../Db/Notifications.js"
import type { RunStore } from "../RunStore/RunStore.js"
import { Assignment, Presence, Wakeups } from "./Dispatch.js"
import { Revocation, Supervisor } from "./Supervision.js"
import { RunEvents, RunFeed } from "./RunFeed.js"
import * as Tuning from "../Config/Tuning.js"
import type { TerminalHandoff } from "./TerminalHandoff.js"
import { DueAlarm } from "./Due.js"
import { Transitions } from "./Transitions.js"

/** Every service of the scheduler core. */
export type Services = Revocation | Supervisor | Assignment | Transitions | Wakeups | RunEvents | RunFeed | DueAlarm

/**
 * The scheduler core: assignment, run supervision (a background fiber per
 * run plus the sweep, started with the layer and interrupted when its scope
 * closes), transitions, wake-ups and the terminal-run stream. The worker
 * protocol (`WorkerProtocol/WorkerProtocol`) is a layer of its own over it.
 * The database (`SqlClient`, `Notifications`) stays a requirement, so the
 * embedding program chooses it; the schema comes from `Db/Migrations`; so
 * does the run store every statement of the engine goes through
 * (`RunStore`, in `App.layerServices`: one instance, which a test may wrap);
 * so does the port to webhook delivery (`TerminalHandoff`): `Webhooks/Handoff`
 * where this instance runs a delivery loop, `TerminalHandoff.none` where not.
 */
export const layer: Layer.Layer<Services, never, SqlClient.SqlClient | Notifications | Tuning.Tuning | TerminalHandoff | RunStore> =
  Revocation.Default.pipe(
    Layer.provideMerge(Layer.merge(Supervisor.Default, Presence.Default)),
    Layer.provideMerge(Layer.mergeAll(Assignment.Default, Transitions.Default)),
    Layer.provideMerge(Layer.mergeAll(Wakeups.Default, RunEvents.Default, RunFeed.Default, DueAlarm.Default))
  )

/** The scheduler with `Tuning.defaults` overridden by `options`. */
export const layerWith = (
  options: Partial<Tuning.TuningShape> = {}
): Layer.Layer<Services, never, SqlClient.SqlClient | Notifications | TerminalHandoff | RunStore> => layer.pipe(Layer.provide(Tuning.layer(options)))
