import * as Effect from "effect/Effect";
export const make = (permits) => Effect.sync(() => {
    let free = permits;
    // Woken waiters that have not taken their permit yet: it is kept for them.
    let woken = 0;
    // A Set iterates in insertion order: the first entry is the oldest waiter.
    const waiters = new Set();
    const wakeNext = () => {
        while (free - woken > 0 && waiters.size > 0) {
            const next = waiters.values().next().value;
            waiters.delete(next);
            woken++;
            next();
        }
    };
    const release = Effect.sync(() => {
        free++;
        wakeNext();
    });
    // Must run uninterruptibly; only the wait itself is `restore`d.
    const acquire = (restore) => Effect.suspend(() => {
        if (free - woken > 0) {
            free--;
            return Effect.void;
        }
        const turn = { woken: false };
        const wait = Effect.async((resume) => {
            const waiter = () => {
                turn.woken = true;
                resume(Effect.void);
            };
            waiters.add(waiter);
            return Effect.sync(() => {
                waiters.delete(waiter);
            });
        });
        return restore(wait).pipe(Effect.onInterrupt(() => Effect.sync(() => {
            if (!turn.woken)
                return;
            woken--;
            wakeNext();
        })), Effect.zipRight(Effect.suspend(() => {
            woken--;
            return acquire(restore);
        })));
    });
    return {
        withPermit: (self) => Effect.uninterruptibleMask((restore) => Effect.zipRight(acquire(restore), Effect.ensuring(restore(self), release))),
        acquireScoped: Effect.uninterruptibleMask((restore) => Effect.zipRight(acquire(restore), Effect.addFinalizer(() => release)))
    };
});
//# sourceMappingURL=Permits.js.map