import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import type { Ended, Lease, Terminal } from "../RunStore/Terminal.js"
import type { Slot, TerminalHandoff } from "./TerminalHandoff.js"

/**
 * Every ending of a run (the terminal statement, `RunStore/Terminal`)
 * with its webhook handed to this instance's delivery loop through the
 * `TerminalHandoff` port when it has room.
 */
export const make = (handoff: TerminalHandoff["Type"]) => {
  /**
   * Places in this instance's delivery loop for `n` webhooks (see
   * `TerminalHandoff`): all of them, or none (then every row of the
   * statement takes the NOTIFY path). None inside a transaction: a row
   * would be handed before it commits.
   */
  const reserveSlots = (n: number): Effect.Effect<ReadonlyArray<Slot>> =>
    Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (transaction) => {
      if (Option.isSome(transaction)) return Effect.succeed([])
      const slots: Array<Slot> = []
      for (let i = 0; i < n; i++) {
        const slot = handoff.reserve()
        // Not enough room: give back what was taken.
        if (slot === undefined) return Effect.as(Effect.forEach(slots, (taken) => taken.cancel, { discard: true }), [])
        slots.push(slot)
      }
      return Effect.succeed(slots)
    })

  /**
   * Runs a terminal statement that may end up to `n` runs with their outbox
   * rows leased to this instance's loop when it has room for all of them,
   * then hands each row leased to it; the places not used are given back.
   */
  const ending = (n: number, statement: (lease: Lease) => Effect.Effect<Ended>): Effect.Effect<ReadonlyArray<Terminal>> =>
    Effect.uninterruptible(Effect.flatMap(reserveSlots(n), (slots) =>
      statement({ owner: slots[0]?.owner ?? null, leaseMillis: slots[0]?.leaseMillis ?? 0 }).pipe(
        Effect.onExit((exit) => {
          if (slots.length === 0) return Effect.void
          const leased = Exit.isSuccess(exit) ? exit.value.leased : []
          return Effect.all([
            ...leased.map((run, i) => slots[i]!.hand(run)),
            ...slots.slice(leased.length).map((slot) => slot.cancel)
          ], { discard: true })
        }),
        Effect.map((result) => result.ended)
      )))

  return ending
}

/** A terminal statement with its webhooks handed over, as the transitions that end runs call it. */
export type Ending = ReturnType<typeof make>
