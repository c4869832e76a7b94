import * as Effect from "effect/Effect"
import type { Terminal } from "../RunStore/Terminal.js"
import type { Ending } from "./Terminal.js"
import type { TransitionKit } from "./TransitionKit.js"

/** Cancelling a run (the statements are `RunStore`'s, see `RunStore/CancelRequests`), an ended run published. */
export const make = (kit: TransitionKit, ending: Ending) => {
  const { published, store } = kit

  /** `RunStore.cancel`: undefined when nothing matched. */
  const cancel = (
    runId: string,
    environmentId: string,
    actor: { readonly type: string; readonly id: string | null }
  ): Effect.Effect<Terminal | undefined> =>
    Effect.gen(function*() {
      const [changed] = yield* ending(1, (lease) => store.cancel(runId, environmentId, actor, lease))
      yield* published(changed)
      return changed
    }).pipe(Effect.withSpan("Transitions.cancel", { attributes: { runId } }))

  return { cancel, cancelRequestedOf: store.cancelRequestedOf } as const
}
