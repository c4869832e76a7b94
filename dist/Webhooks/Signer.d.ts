/** Header carrying the signature of the body bytes. */
export declare const signatureHeader = "x-service-signature";
/** `sha256=<hex HMAC-SHA256 of the exact body bytes>`, keyed with the trigger's webhook secret. */
export declare const sign: (secret: string, body: Uint8Array | string) => string;
/**
 * What a receiver does: recompute over the raw bytes received and compare in
 * constant time (a plain `===` would leak, byte by byte, how much matched).
 */
export declare const verify: (secret: string, body: Uint8Array | string, header: string | undefined) => boolean;
//# sourceMappingURL=Signer.d.ts.map