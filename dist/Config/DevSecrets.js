import * as Effect from "effect/Effect";
import * as Redacted from "effect/Redacted";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
/**
 * Development secrets kept in `DATA_DIR/secrets.json` (mode 0600). Generated
 * on the first start, reused afterwards; never used when NODE_ENV=production.
 */
export const DevSecrets = {
    loadOrCreate: (dataDir) => Effect.gen(function* () {
        const file = path.join(dataDir, "secrets.json");
        const stored = yield* Effect.try(() => {
            fs.mkdirSync(dataDir, { recursive: true });
            if (fs.existsSync(file)) {
                return JSON.parse(fs.readFileSync(file, "utf8"));
            }
            const fresh = {
                jwtSecret: randomBytes(48).toString("base64"),
                secretsKey: randomBytes(32).toString("base64")
            };
            fs.writeFileSync(file, JSON.stringify(fresh), { mode: 0o600 });
            return fresh;
        }).pipe(Effect.orDie);
        yield* Effect.logInfo("using development secrets").pipe(Effect.annotateLogs({ file }));
        return { jwtSecret: Redacted.make(stored.jwtSecret), secretsKey: Redacted.make(stored.secretsKey) };
    })
};
//# sourceMappingURL=DevSecrets.js.map