import { createHmac, timingSafeEqual } from "node:crypto";
const b64 = (value) => Buffer.from(value).toString("base64url");
const header = b64(JSON.stringify({ alg: "HS256", typ: "JWT" }));
const mac = (key, data) => createHmac("sha256", key).update(data).digest();
export const sign = (key, claims) => {
    const body = `${header}.${b64(JSON.stringify(claims))}`;
    return `${body}.${b64(mac(key, body))}`;
};
/** The claims of a token with a valid signature that has not expired, else undefined. */
export const verify = (key, token, nowSeconds) => {
    const parts = token.split(".");
    if (parts.length !== 3 || parts[0] !== header)
        return undefined;
    const [h, p, s] = parts;
    const expected = mac(key, `${h}.${p}`);
    const given = Buffer.from(s, "base64url");
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
        return undefined;
    try {
        const claims = JSON.parse(Buffer.from(p, "base64url").toString("utf8"));
        if (typeof claims.sub !== "string" || typeof claims.sid !== "string" || typeof claims.exp !== "number") {
            return undefined;
        }
        return claims.exp > nowSeconds ? claims : undefined;
    }
    catch {
        return undefined;
    }
};
//# sourceMappingURL=Jwt.js.map