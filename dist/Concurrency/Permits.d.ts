import * as Effect from "effect/Effect";
import type * as Scope from "effect/Scope";
/**
 * A counting semaphore that wakes one waiter per free permit, oldest first.
 * `Effect.makeSemaphore` (effect 3.x) resumes every waiter on a release and
 * all but one go back to waiting: with hundreds waiting (webhook deliveries
 * queued for a socket, statements queued for the embedded database's single
 * connection) that herd was most of the CPU they used.
 *
 * Interruption never loses a permit: a woken waiter takes its permit itself,
 * in the same uninterruptible step that installs its release, and a waiter
 * interrupted after being woken passes its turn on.
 */
export interface Permits {
    /** Runs `self` holding one permit, released however it ends. */
    readonly withPermit: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>;
    /** Holds one permit until the scope closes. */
    readonly acquireScoped: Effect.Effect<void, never, Scope.Scope>;
}
export declare const make: (permits: number) => Effect.Effect<Permits>;
//# sourceMappingURL=Permits.d.ts.map