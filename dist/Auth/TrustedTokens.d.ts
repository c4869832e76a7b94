/**
 * Bearer tokens verified against the database in the last `trustMillis`,
 * trusted again without a statement. A busy worker or script makes several
 * calls a second with one token; verifying each was a statement per call
 * (for a run request, a fifth of its cost). Keyed by the token's SHA-256, so
 * no token is held in memory. Bounded: past `capacity` entries, the expired
 * ones are dropped.
 */
export interface TrustedTokens<A> {
    /**
     * What `hash` was verified as, when that is recent enough to trust. When it
     * is known but due, this caller re-verifies and the others go on trusting it
     * meanwhile (rather than all queueing on its row at once): undefined here.
     */
    readonly trusted: (hash: string, now: number) => A | undefined;
    readonly remember: (hash: string, value: A, now: number) => void;
    /** Stops trusting `hash` (the database refused it). */
    readonly forget: (hash: string) => void;
    /** Stops trusting every token whose value matches (a revoked key, by id). */
    readonly forgetWhere: (matches: (value: A) => boolean) => void;
}
export declare const make: <A>(trustMillis: number, capacity?: number) => TrustedTokens<A>;
//# sourceMappingURL=TrustedTokens.d.ts.map