import * as Effect from "effect/Effect";
/** `scrypt$N$r$p$salt$hash`, both base64. */
export declare const hash: (password: string) => Effect.Effect<string>;
export declare const verify: (password: string, stored: string) => Effect.Effect<boolean>;
/** A hash of a random password, verified against when the email is unknown so timing does not reveal it. */
export declare const dummyHash: Effect.Effect<string, never, never>;
//# sourceMappingURL=Passwords.d.ts.map