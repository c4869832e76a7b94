import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
/** A bearer token: prefix, underscore, 32 random bytes (256 bits) in base64url. */
export const generate = (prefix) => `${prefix}_${randomBytes(32).toString("base64url")}`;
/** Tokens are stored only as this hash; lookups hash the presented token. */
export const sha256 = (value) => createHash("sha256").update(value).digest("hex");
/** The first characters of a token, safe to show in listings so users can tell keys apart. */
export const tokenStart = (token) => token.slice(0, 8);
export const constantTimeEqual = (a, b) => {
    const ba = Buffer.from(a);
    const bb = Buffer.from(b);
    return ba.length === bb.length && timingSafeEqual(ba, bb);
};
//# sourceMappingURL=Tokens.js.map