import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import type { RunRow } from "../Contract/Domain/Run.js"
import { type Slot, TerminalHandoff } from "../Scheduler/TerminalHandoff.js"
import type { OutboxRow } from "./DeliveriesRepo.js"
import { payloadOf, type TerminalRun } from "./Payload.js"

/** What the delivery loop attaches: a place for one more delivery, if it has room. */
export interface Loop {
  readonly reserve: () => Slot | undefined
}

/**
 * The outbox row a handed terminal run is delivered as: what leasing the row
 * would have read, rendered from the run the transition returned.
 */
export const outboxRowOf = (run: RunRow): OutboxRow => ({
  run_id: run.id,
  trigger_id: run.trigger_id,
  url: run.webhook_url ?? "",
  secret_enc: run.webhook_secret_enc,
  payload: payloadOf({ ...run, status: run.status as TerminalRun["status"] }),
  attempts: 0,
  last_status_code: null,
  last_response_body: null,
  last_error: null
})

/**
 * Hands a terminal run's webhook from the transition that ended it straight to
 * this instance's delivery loop (the engine's `TerminalHandoff` port). Without
 * it the row is inserted unleased and announced with NOTIFY, and a loop (here
 * or on another instance) leases it: two more statements and a wake-up per
 * delivery, which under load were a fifth of a run's CPU. The row is durable
 * either way: a handed row is leased like any other, so if this instance dies,
 * another takes it when the lease expires. When no loop is attached (during
 * start-up or shutdown) the transition takes the NOTIFY path.
 */
export class DeliveryHandoff extends Context.Tag("Webhooks/DeliveryHandoff")<DeliveryHandoff, {
  /** Attaches the loop for the current scope (detached when the scope closes, before its fibers stop). */
  readonly attach: (loop: Loop) => Effect.Effect<void, never, Scope.Scope>
  /** A place in the attached loop, or undefined: no loop, or no room. */
  readonly reserve: () => Slot | undefined
}>() {
  /**
   * One handoff, as both the loop's attachment point and the engine's port:
   * built once per instance, so the transitions reserve in the loop that attached.
   */
  static readonly layer: Layer.Layer<DeliveryHandoff | TerminalHandoff> = Layer.effectContext(Effect.sync(() => {
    let attached: Loop | undefined
    const handoff = DeliveryHandoff.of({
      attach: (loop) =>
        Effect.acquireRelease(
          Effect.sync(() => {
            attached = loop
          }),
          () =>
            Effect.sync(() => {
              if (attached === loop) attached = undefined
            })
        ),
      reserve: () => attached?.reserve()
    })
    return Context.make(DeliveryHandoff, handoff).pipe(Context.add(TerminalHandoff, { reserve: handoff.reserve }))
  }))
}
