import * as Effect from "effect/Effect"
import * as CancelRequests from "./CancelRequests.js"
import * as Endings from "./Endings.js"
import * as Steps from "./Steps.js"
import * as TerminalStatement from "./Terminal.js"
import { TerminalHandoff } from "./TerminalHandoff.js"
import * as TransitionKit from "./TransitionKit.js"

export type { Completion } from "./Endings.js"
export type { Terminal } from "./Terminal.js"

/**
 * The run state machine after assignment. Every transition is one conditional
 * UPDATE ... RETURNING: the row count decides, so a transition from the wrong
 * state changes nothing, and with two instances each happens exactly once.
 * A deadline that has passed counts as a wrong state: the supervisor is about
 * to time the run out, and a late heartbeat must not resurrect it.
 */
export class Transitions extends Effect.Service<Transitions>()("Scheduler/Transitions", {
  effect: Effect.gen(function*() {
    const kit = yield* TransitionKit.make
    // This instance's delivery loop, or the port's `none` (see `TerminalHandoff`).
    const terminal = TerminalStatement.make(kit, yield* TerminalHandoff)
    return { ...Steps.make(kit), ...Endings.make(kit, terminal), ...CancelRequests.make(kit, terminal) } as const
  })
}) {}
