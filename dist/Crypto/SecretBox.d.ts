import * as Effect from "effect/Effect";
import { AppConfig } from "../Config/AppConfig.js";
declare const SecretBox_base: Effect.Service.Class<SecretBox, "Crypto/SecretBox", {
    readonly effect: Effect.Effect<{
        readonly seal: (plaintext: string) => string;
        readonly open: (sealed: string) => Effect.Effect<string>;
        readonly currentKeyId: string;
        readonly previousKeyIds: string[];
    }, never, AppConfig>;
}>;
/**
 * AES-256-GCM encryption of secrets at rest (webhook secrets).
 *
 * Sealed format: `v1.<keyId>.<iv>.<tag>.<ciphertext>` (base64url). The key id is
 * the first 8 hex characters of SHA-256(key), so a rotated `SECRETS_KEY` can be
 * told apart from the old one; `SECRETS_KEY_PREVIOUS` (comma-separated) keeps
 * older keys readable while rows are re-sealed.
 */
export declare class SecretBox extends SecretBox_base {
}
export {};
//# sourceMappingURL=SecretBox.d.ts.map