import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
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
export class DeliveryHandoff extends Context.Tag("Webhooks/DeliveryHandoff")() {
    static layer = Layer.sync(DeliveryHandoff, () => {
        let attached;
        return DeliveryHandoff.of({
            attach: (loop) => Effect.acquireRelease(Effect.sync(() => {
                attached = loop;
            }), () => Effect.sync(() => {
                if (attached === loop)
                    attached = undefined;
            })),
            reserve: () => attached?.reserve()
        });
    });
}
//# sourceMappingURL=Handoff.js.map