/** HS256 JSON Web Tokens: only what session cookies need (sub, sid, iat, exp). */
export interface Claims {
    readonly sub: string;
    readonly sid: string;
    readonly iat: number;
    readonly exp: number;
}
export declare const sign: (key: string, claims: Claims) => string;
/** The claims of a token with a valid signature that has not expired, else undefined. */
export declare const verify: (key: string, token: string, nowSeconds: number) => Claims | undefined;
//# sourceMappingURL=Jwt.d.ts.map