import * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import { SecretBox } from "../Crypto/SecretBox.js";
import { AppConfig } from "./AppConfig.js";
declare const KeyMismatch_base: new <A extends Record<string, any> = {}>(args: import("effect/Types").VoidIfEmpty<{ readonly [P in keyof A as P extends "_tag" ? never : P]: A[P]; }>) => import("effect/Cause").YieldableError & {
    readonly _tag: "KeyMismatch";
} & Readonly<A>;
/**
 * Every instance on one database must sign sessions with the same JWT_SECRET
 * and seal webhook secrets with the same SECRETS_KEY; otherwise sessions made
 * on one are refused by the other and webhooks fail for good. The first
 * instance records fingerprints of its keys (never the keys); a later one
 * with different keys is refused at start with a message saying which.
 */
export declare class KeyMismatch extends KeyMismatch_base<{
    readonly message: string;
}> {
}
export declare const check: Effect.Effect<undefined, import("@effect/sql/SqlError").SqlError | KeyMismatch, SqlClient.SqlClient | AppConfig | SecretBox>;
/** Runs the check when the services start. */
export declare const layer: Layer.Layer<never, import("@effect/sql/SqlError").SqlError | KeyMismatch, SqlClient.SqlClient | AppConfig | SecretBox>;
export {};
//# sourceMappingURL=KeyCheck.d.ts.map