/**
 * The `pg` pools open in this process, read when metrics are scraped (the
 * pool keeps its own counts, so nothing is paid per statement).
 */
const pools = new Set();
export const track = (pool) => {
    pools.add(pool);
};
export const untrack = (pool) => {
    pools.delete(pool);
};
/** Connections in use, idle and awaited, summed over the pools (undefined with none: the embedded database). */
export const use = () => {
    if (pools.size === 0)
        return undefined;
    let busy = 0, idle = 0, waiting = 0, max = 0;
    for (const pool of pools) {
        busy += pool.totalCount - pool.idleCount;
        idle += pool.idleCount;
        waiting += pool.waitingCount;
        max += pool.options.max ?? 10;
    }
    return { busy, idle, waiting, max };
};
//# sourceMappingURL=PoolStats.js.map