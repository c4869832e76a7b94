import * as Effect from "effect/Effect";
import * as PubSub from "effect/PubSub";
import * as Stream from "effect/Stream";
import * as Metrics from "../Observability/Metrics.js";
/**
 * Terminal runs of this instance, for an embedding Effect program:
 * `Stream.runForEach(runEvents.terminal, ...)`. Published after the terminal
 * transaction commits; a slow subscriber never slows the scheduler (each
 * subscriber has its own unbounded buffer, and nothing waits for it).
 */
export class RunEvents extends Effect.Service()("Scheduler/RunEvents", {
    scoped: Effect.gen(function* () {
        const hub = yield* Effect.acquireRelease(PubSub.unbounded(), PubSub.shutdown);
        // Every terminal transition passes here, so the ended-runs metrics are counted here too.
        const publish = (run) => Effect.suspend(() => {
            Metrics.record.runEnded(run.environmentId, run.status, run.durationMs);
            return Effect.asVoid(PubSub.publish(hub, run));
        });
        /** Every terminal run published after the stream is subscribed. */
        const terminal = Stream.fromPubSub(hub);
        /** A scoped subscription, for callers that must not miss a run published right after subscribing. */
        const subscribe = PubSub.subscribe(hub);
        return { publish, terminal, subscribe };
    })
}) {
}
//# sourceMappingURL=RunEvents.js.map