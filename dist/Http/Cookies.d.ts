import * as Effect from "effect/Effect";
/**
 * Adds a `Set-Cookie` header to the response of the current request. Handlers
 * return typed values, so the cookie is attached as the response goes out.
 */
export declare const setCookie: (value: string) => Effect.Effect<void>;
//# sourceMappingURL=Cookies.d.ts.map