import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as FiberSet from "effect/FiberSet";
import * as Detached from "./Detached.js";
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
export const make = (options) => Effect.gen(function* () {
    const groups = new Map();
    const fibers = yield* FiberSet.make();
    const fork = yield* Detached.forker;
    /** The next group: up to `max` items, no two with the same id (those wait for the one after). */
    const take = (group) => {
        if (options.id === undefined)
            return group.queue.splice(0, options.max);
        const taken = [];
        const ids = new Set();
        for (let i = 0; i < group.queue.length && taken.length < options.max;) {
            const id = options.id(group.queue[i].item);
            if (ids.has(id)) {
                i++;
                continue;
            }
            ids.add(id);
            taken.push(...group.queue.splice(i, 1));
        }
        return taken;
    };
    /**
     * Runs for the group's queue, one after another, until it is empty. A
     * loop, not a recursion: under steady load a key's queue may never empty,
     * and each recursive step would keep a frame.
     */
    const drain = (key, group) => {
        let batch = [];
        const once = Effect.suspend(() => {
            batch = take(group);
            if (batch.length === 0) {
                groups.delete(key);
                return Effect.succeed(false);
            }
            return Effect.map(Effect.exit(options.run(key, batch.map((pending) => pending.item))), (exit) => {
                batch.forEach((pending, i) => pending.resume(Exit.isSuccess(exit) ? exit.value[i] ?? Effect.dieMessage("no answer for an item") : Effect.failCause(exit.cause)));
                batch = [];
                return true;
            });
        });
        return once.pipe(Effect.repeat({ while: (more) => more }), Effect.asVoid, 
        // Shutting down: whoever still waits is told, not left hanging.
        Effect.onInterrupt(() => Effect.sync(() => {
            groups.delete(key);
            for (const pending of [...batch, ...group.queue.splice(0)])
                pending.resume(Effect.interrupt);
        })));
    };
    return (key, item) => Effect.async((resume) => {
        const pending = { item, resume };
        const waiting = groups.get(key);
        if (waiting !== undefined) {
            waiting.queue.push(pending);
            return Effect.sync(() => {
                const at = waiting.queue.indexOf(pending);
                if (at >= 0)
                    waiting.queue.splice(at, 1);
            });
        }
        const group = { queue: [pending] };
        groups.set(key, group);
        FiberSet.unsafeAdd(fibers, fork(drain(key, group)));
    });
});
//# sourceMappingURL=Grouped.js.map