import * as Effect from "effect/Effect";
import type * as Scope from "effect/Scope";
export interface GroupedOptions<I, O, E> {
    /** The most items one `run` gets. */
    readonly max: number;
    /** Items with the same id never share a `run` (one statement must not name a row twice). */
    readonly id?: ((item: I) => string) | undefined;
    /** Does the work for a group: one answer per item, in order. */
    readonly run: (key: string, items: ReadonlyArray<I>) => Effect.Effect<ReadonlyArray<Effect.Effect<O, E>>>;
}
/**
 * Group commit for any per-key call: while a call for a key is in flight,
 * further calls for that key wait, and the next `run` takes all of them (up
 * to `max`). A call that finds nothing in flight goes at once, so grouping
 * adds no wait at idle; under load a group is whatever arrived during the
 * previous round trip. Each caller gets its own item's answer.
 *
 * The runs happen in fibers of the scope this is made in (interrupted when
 * it closes, and whoever still waits is interrupted too), not in the caller
 * that happened to start the group: the run serves every caller in it. A
 * caller that leaves before its run starts is dropped from it; once the run
 * has started, its item is done regardless (as with any request whose client
 * hangs up mid-statement).
 */
export declare const make: <I, O, E>(options: GroupedOptions<I, O, E>) => Effect.Effect<(key: string, item: I) => Effect.Effect<O, E>, never, Scope.Scope>;
//# sourceMappingURL=Grouped.d.ts.map