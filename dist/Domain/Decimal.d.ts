/**
 * Money is decimal text, never a float. Postgres `numeric` does the exact
 * arithmetic; this only writes its output canonically ("0.10000000" → "0.1").
 */
export declare const canonical: (value: string) => string;
export declare const canonicalOrNull: (value: string | null | undefined) => string | null;
/** The contract's accepted form for `costUsd`. */
export declare const costPattern: RegExp;
//# sourceMappingURL=Decimal.d.ts.map