import * as Effect from "effect/Effect";
declare const DataDirInUse_base: new <A extends Record<string, any> = {}>(args: import("effect/Types").VoidIfEmpty<{ readonly [P in keyof A as P extends "_tag" ? never : P]: A[P]; }>) => import("effect/Cause").YieldableError & {
    readonly _tag: "DataDirInUse";
} & Readonly<A>;
/**
 * The embedded database is one Postgres data directory written by one
 * process: a second process opening it would keep its own copy in memory and
 * overwrite the first one's writes on close. So the directory is locked: a
 * lock file created exclusively (O_EXCL) holding the owner's pid, host and
 * process start time. A lock whose process is gone (a crash, kill -9) is
 * stale and taken over; the start time tells a reused pid from the owner.
 */
export declare class DataDirInUse extends DataDirInUse_base<{
    readonly message: string;
    readonly dataDir: string;
    readonly pid: number;
}> {
}
/** `<dir>.lock` beside the directory: Postgres owns the inside of its data directory. */
export declare const lockFileOf: (dataDir: string) => string;
/** Holds the lock on `dataDir` for the scope's lifetime. */
export declare const hold: (dataDir: string) => Effect.Effect<void, DataDirInUse, import("effect/Scope").Scope>;
export {};
//# sourceMappingURL=DataDirLock.d.ts.map