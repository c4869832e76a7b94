import type Pg from "pg";
export declare const track: (pool: Pg.Pool) => void;
export declare const untrack: (pool: Pg.Pool) => void;
export interface Use {
    readonly busy: number;
    readonly idle: number;
    readonly waiting: number;
    readonly max: number;
}
/** Connections in use, idle and awaited, summed over the pools (undefined with none: the embedded database). */
export declare const use: () => Use | undefined;
//# sourceMappingURL=PoolStats.d.ts.map