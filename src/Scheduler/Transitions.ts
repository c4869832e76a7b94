import * as Effect from "effect/Effect"
import * as CancelRequests from "./CancelRequests.js"
import * as Endings from "./Endings.js"
import * as Steps from "./Steps.js"
import * as Terminal from "./Terminal.js"
import { TerminalHandoff } from "./TerminalHandoff.js"
import * as TransitionKit from "./TransitionKit.js"

export type { Completion } from "../RunStore/Endings.js"
export type { Terminal } from "../RunStore/Terminal.js"

/**
 * The run state machine after assignment: each transition is a statement of
 * the run store (`RunStore`), followed here by what this instance does about
 * it (the live feed, the terminal-run stream, webhook handoff, metrics).
 */
export class Transitions extends Effect.Service<Transitions>()("Scheduler/Transitions", {
  effect: Effect.gen(function*() {
    const kit = yield* TransitionKit.make
    // This instance's delivery loop, or the port's `none` (see `TerminalHandoff`).
    const ending = Terminal.make(yield* TerminalHandoff)
    return { ...Steps.make(kit), ...Endings.make(kit, ending), ...CancelRequests.make(kit, ending) } as const
  })
}) {}
