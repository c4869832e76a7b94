import * as Effect from "effect/Effect"
import * as PubSub from "effect/PubSub"
import * as Stream from "effect/Stream"
import * as Metrics from "../Observability/Metrics.js"
import type { Run } from "../Domain/Run.js"

/** Terminal runs a subscriber may fall behind by before it loses the oldest. */
export const terminalCapacity = 4096

/**
 * Terminal runs of this instance, for an embedding Effect program:
 * `Stream.runForEach(runEvents.terminal, ...)`. Published after the terminal
 * transaction commits; a slow subscriber never slows the scheduler, and its
 * memory is bounded: one that falls `terminalCapacity` runs behind loses the
 * oldest (a sliding buffer). For every transition of an environment, on any
 * instance and without loss, follow `RunFeed` (the stored timeline) instead.
 */
export class RunEvents extends Effect.Service<RunEvents>()("Scheduler/RunEvents", {
  scoped: Effect.gen(function*() {
    const hub = yield* Effect.acquireRelease(PubSub.sliding<Run>(terminalCapacity), PubSub.shutdown)
    // Every terminal transition passes here, so the ended-runs metrics are counted here too.
    const publish = (run: Run): Effect.Effect<void> =>
      Effect.suspend(() => {
        Metrics.record.runEnded(run.environmentId, run.status, run.durationMs)
        return Effect.asVoid(PubSub.publish(hub, run))
      })
    /** Every terminal run published after the stream is subscribed. */
    const terminal: Stream.Stream<Run> = Stream.fromPubSub(hub)
    /** A scoped subscription, for callers that must not miss a run published right after subscribing. */
    const subscribe = PubSub.subscribe(hub)
    return { publish, terminal, subscribe } as const
  })
}) {}
