import * as Effect from "effect/Effect";
import * as Runtime from "effect/Runtime";
/**
 * A synchronous fork into the runtime of the fiber that asks for it (a
 * service being built), interruptible whatever region that was. For fibers
 * that serve many callers (a group's statements, a run's supervision): forked
 * from a request instead, they would inherit its log annotations, span and
 * fiber refs, and carry them for as long as they live.
 */
export const forker = Effect.map(Effect.runtime(), (built) => Runtime.runFork(Runtime.make({
    context: built.context,
    fiberRefs: built.fiberRefs,
    runtimeFlags: Runtime.defaultRuntime.runtimeFlags
})));
//# sourceMappingURL=Detached.js.map