import * as Effect from "effect/Effect";
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";
// scrypt with N=2^15, r=8, p=1 (about 32 MiB and ~50 ms per hash): memory-hard,
// as the contract asks, and cheap enough for a 2-core machine.
const N = 32768;
const r = 8;
const p = 1;
const keyLength = 32;
const maxmem = 64 * 1024 * 1024;
const derive = (password, salt, n, rr, pp) => Effect.async((resume) => {
    scrypt(password.normalize("NFKC"), salt, keyLength, { N: n, r: rr, p: pp, maxmem }, (err, key) => {
        resume(err ? Effect.fail(err) : Effect.succeed(key));
    });
});
/** `scrypt$N$r$p$salt$hash`, both base64. */
export const hash = (password) => Effect.gen(function* () {
    const salt = randomBytes(16);
    const key = yield* Effect.orDie(derive(password, salt, N, r, p));
    return `scrypt$${N}$${r}$${p}$${salt.toString("base64")}$${key.toString("base64")}`;
});
export const verify = (password, stored) => Effect.gen(function* () {
    const [kind, n, rr, pp, salt, expected] = stored.split("$");
    if (kind !== "scrypt" || !salt || !expected)
        return false;
    const key = yield* Effect.orDie(derive(password, Buffer.from(salt, "base64"), Number(n), Number(rr), Number(pp)));
    const want = Buffer.from(expected, "base64");
    return key.length === want.length && timingSafeEqual(key, want);
});
/** A hash of a random password, verified against when the email is unknown so timing does not reveal it. */
export const dummyHash = hash(randomBytes(16).toString("hex")).pipe(Effect.cached, Effect.runSync);
//# sourceMappingURL=Passwords.js.map