import * as Effect from "effect/Effect";
import * as Redacted from "effect/Redacted";
/**
 * Development secrets kept in `DATA_DIR/secrets.json` (mode 0600). Generated
 * on the first start, reused afterwards; never used when NODE_ENV=production.
 */
export declare const DevSecrets: {
    loadOrCreate: (dataDir: string) => Effect.Effect<{
        jwtSecret: Redacted.Redacted<string>;
        secretsKey: Redacted.Redacted<string>;
    }, never, never>;
};
//# sourceMappingURL=DevSecrets.d.ts.map