import * as Effect from "effect/Effect";
import * as Redacted from "effect/Redacted";
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { AppConfig } from "../Config/AppConfig.js";
/**
 * AES-256-GCM encryption of secrets at rest (webhook secrets).
 *
 * Sealed format: `v1.<keyId>.<iv>.<tag>.<ciphertext>` (base64url). The key id is
 * the first 8 hex characters of SHA-256(key), so a rotated `SECRETS_KEY` can be
 * told apart from the old one; `SECRETS_KEY_PREVIOUS` (comma-separated) keeps
 * older keys readable while rows are re-sealed.
 */
export class SecretBox extends Effect.Service()("Crypto/SecretBox", {
    effect: Effect.gen(function* () {
        const config = yield* AppConfig;
        const parseKey = (b64) => {
            const key = Buffer.from(b64.trim(), "base64");
            if (key.length !== 32) {
                throw new Error("SECRETS_KEY must be 32 bytes, base64-encoded");
            }
            return key;
        };
        const current = yield* Effect.try(() => parseKey(Redacted.value(config.secretsKey))).pipe(Effect.orDie);
        const keyId = (key) => createHash("sha256").update(key).digest("hex").slice(0, 8);
        const keys = new Map([[keyId(current), current]]);
        for (const b64 of config.secretsKeyPrevious) {
            const key = yield* Effect.try(() => parseKey(Redacted.value(b64))).pipe(Effect.orDie);
            keys.set(keyId(key), key);
        }
        const currentId = keyId(current);
        const seal = (plaintext) => {
            const iv = randomBytes(12);
            const cipher = createCipheriv("aes-256-gcm", current, iv);
            const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
            const tag = cipher.getAuthTag();
            return ["v1", currentId, iv.toString("base64url"), tag.toString("base64url"), body.toString("base64url")].join(".");
        };
        const open = (sealed) => Effect.try(() => {
            const [version, id, iv, tag, body] = sealed.split(".");
            const key = id === undefined ? undefined : keys.get(id);
            if (version !== "v1" || !key || !iv || !tag || body === undefined) {
                throw new Error("sealed secret uses an unknown format or key");
            }
            const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
            decipher.setAuthTag(Buffer.from(tag, "base64url"));
            return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
        }).pipe(Effect.orDie);
        /** Ids of the keys kept for opening only (SECRETS_KEY_PREVIOUS). */
        const previousKeyIds = [...keys.keys()].filter((id) => id !== currentId);
        return { seal, open, currentKeyId: currentId, previousKeyIds };
    })
}) {
}
//# sourceMappingURL=SecretBox.js.map