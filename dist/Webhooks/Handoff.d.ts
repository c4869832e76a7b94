import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import type * as Scope from "effect/Scope";
import type { OutboxRow } from "./DeliveriesRepo.js";
/**
 * A place in this instance's delivery loop, taken before a terminal
 * transition's statement: the outbox row is then inserted already leased to
 * the loop (`owner`, for `leaseMillis`), and handed to it once committed.
 * Exactly one of `hand` and `cancel` follows.
 */
export interface Slot {
    readonly owner: string;
    readonly leaseMillis: number;
    /** The row was inserted leased to `owner`: deliver it. */
    readonly hand: (row: OutboxRow) => Effect.Effect<void>;
    /** No row was inserted (no webhook, or the transition lost): give the place back. */
    readonly cancel: Effect.Effect<void>;
}
/** What the delivery loop attaches: a place for one more delivery, if it has room. */
export interface Loop {
    readonly reserve: () => Slot | undefined;
}
declare const DeliveryHandoff_base: Context.TagClass<DeliveryHandoff, "Webhooks/DeliveryHandoff", {
    /** Attaches the loop for the current scope (detached when the scope closes, before its fibers stop). */
    readonly attach: (loop: Loop) => Effect.Effect<void, never, Scope.Scope>;
    /** A place in the attached loop, or undefined: no loop, or no room. */
    readonly reserve: () => Slot | undefined;
}>;
/**
 * Hands a terminal run's webhook from the transition that ended it straight to
 * this instance's delivery loop. Without it the row is inserted unleased and
 * announced with NOTIFY, and a loop (here or on another instance) leases it:
 * two more statements and a wake-up per delivery, which under load were a
 * fifth of a run's CPU. The row is durable either way: a handed row is leased
 * like any other, so if this instance dies, another takes it when the lease
 * expires. When no loop is attached (an embedding without delivery, or during
 * shutdown) the transition takes the NOTIFY path.
 */
export declare class DeliveryHandoff extends DeliveryHandoff_base {
    static readonly layer: Layer.Layer<DeliveryHandoff, never, never>;
}
export {};
//# sourceMappingURL=Handoff.d.ts.map