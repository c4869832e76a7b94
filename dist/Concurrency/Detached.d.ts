import * as Effect from "effect/Effect";
import type * as Fiber from "effect/Fiber";
/**
 * A synchronous fork into the runtime of the fiber that asks for it (a
 * service being built), interruptible whatever region that was. For fibers
 * that serve many callers (a group's statements, a run's supervision): forked
 * from a request instead, they would inherit its log annotations, span and
 * fiber refs, and carry them for as long as they live.
 */
export declare const forker: Effect.Effect<(<A, E>(effect: Effect.Effect<A, E>) => Fiber.RuntimeFiber<A, E>)>;
//# sourceMappingURL=Detached.d.ts.map