import * as Effect from "effect/Effect";
import type { WorkerCredentials } from "../WorkerSdk/index.js";
declare const TokenFileError_base: new <A extends Record<string, any> = {}>(args: import("effect/Types").VoidIfEmpty<{ readonly [P in keyof A as P extends "_tag" ? never : P]: A[P]; }>) => import("effect/Cause").YieldableError & {
    readonly _tag: "TokenFileError";
} & Readonly<A>;
export declare class TokenFileError extends TokenFileError_base<{
    readonly message: string;
}> {
}
export interface Saved extends WorkerCredentials {
    readonly url: string;
    readonly registrationTokenHash: string | undefined;
}
export declare const hashRegistrationToken: (registrationToken: string) => string;
/**
 * The worker's credentials from an earlier registration, or undefined when
 * the file does not exist. The file holds the `wkt_` token in plain text, so it
 * is created with mode 0600 (owner only), like an SSH key.
 */
export declare const read: (file: string) => Effect.Effect<Saved | undefined, TokenFileError>;
/** Writes the credentials atomically (temp file + rename), owner-readable only. */
export declare const write: (file: string, credentials: WorkerCredentials, url: string, registrationToken: string | undefined) => Effect.Effect<void, TokenFileError>;
export {};
//# sourceMappingURL=TokenFile.d.ts.map