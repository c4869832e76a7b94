/**
 * UUIDv7: 48-bit millisecond timestamp, then randomness. Ids sort by creation
 * time, which keyset pagination and "newest first" listings rely on. A
 * per-process counter in the random bits keeps ids from one millisecond ordered.
 */
export declare const uuidv7: () => string;
//# sourceMappingURL=Ids.d.ts.map