export type TokenPrefix = "pwk" | "wrk" | "wkt" | "mcp";
/** A bearer token: prefix, underscore, 32 random bytes (256 bits) in base64url. */
export declare const generate: (prefix: TokenPrefix) => string;
/** Tokens are stored only as this hash; lookups hash the presented token. */
export declare const sha256: (value: string) => string;
/** The first characters of a token, safe to show in listings so users can tell keys apart. */
export declare const tokenStart: (token: string) => string;
export declare const constantTimeEqual: (a: string, b: string) => boolean;
//# sourceMappingURL=Tokens.d.ts.map