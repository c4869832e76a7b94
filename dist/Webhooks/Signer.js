import { createHmac, timingSafeEqual } from "node:crypto";
/** Header carrying the signature of the body bytes. */
export const signatureHeader = "x-service-signature";
/** `sha256=<hex HMAC-SHA256 of the exact body bytes>`, keyed with the trigger's webhook secret. */
export const sign = (secret, body) => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
/**
 * What a receiver does: recompute over the raw bytes received and compare in
 * constant time (a plain `===` would leak, byte by byte, how much matched).
 */
export const verify = (secret, body, header) => {
    if (header === undefined)
        return false;
    const expected = Buffer.from(sign(secret, body));
    const given = Buffer.from(header);
    return given.length === expected.length && timingSafeEqual(given, expected);
};
//# sourceMappingURL=Signer.js.map