import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { RunRow } from "../Contract/Domain/Run.js"

/**
 * The engine's port to webhook delivery. A terminal transition writes its
 * run's outbox row in its own statement (`RunStore/SqlRunStore`); this port
 * decides whether the row goes straight to a delivery loop on this instance
 * (inserted leased to it, handed over once committed) or is inserted free
 * and announced on `outboxChannel` for any instance to lease. The engine defines it and
 * webhook delivery implements it (`Webhooks/Handoff`), so the engine depends
 * on no part of delivery; `none` is the port for an instance without a loop.
 */

/**
 * A place in this instance's delivery loop, taken before the terminal
 * statement: its row is inserted leased to `owner` for `leaseMillis`.
 * Exactly one of `hand` and `cancel` follows.
 */
export interface Slot {
  readonly owner: string
  readonly leaseMillis: number
  /** The terminal run's row was inserted leased to `owner`: deliver its webhook. */
  readonly hand: (run: RunRow) => Effect.Effect<void>
  /** No row was inserted (no webhook, or the transition lost): give the place back. */
  readonly cancel: Effect.Effect<void>
}

/** Required by the engine: an instance without delivery provides `TerminalHandoff.none`. */
export class TerminalHandoff extends Context.Tag("Scheduler/TerminalHandoff")<TerminalHandoff, {
  /** A place in this instance's loop, or undefined: no loop, or no room (the row then takes the NOTIFY path). */
  readonly reserve: () => Slot | undefined
}>() {
  /** No loop here: every webhook row is announced for whichever instance delivers. */
  static readonly none: Layer.Layer<TerminalHandoff> = Layer.succeed(TerminalHandoff, { reserve: () => undefined })
}
