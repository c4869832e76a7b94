import * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import { Notifications } from "../Db/Notifications.js";
import type { Actor } from "../Auth/Security.js";
import { AuditLog } from "../Audit/AuditLog.js";
import { NotFound, type ValidationError } from "../Domain/Errors.js";
import type { Role } from "../Domain/Schemas.js";
import type { ApiKey, KeyRole } from "./Api.js";
export interface NewKey {
    readonly name: string;
    readonly prefix: "pwk" | "wrk";
    readonly role: KeyRole | null;
}
/**
 * `pwk_` API keys and single-use `wrk_` registration tokens of an environment.
 * The token exists in plain text only in the creation response: the table
 * keeps its SHA-256 (for lookups) and its first characters (for listings).
 */
/** What a verified `pwk_` key lets its caller act as. */
export interface KeyIdentity {
    readonly keyId: string;
    readonly environmentId: string;
    readonly role: Role;
}
/** How long a verified `pwk_` key is trusted on this instance without asking the database again. */
export declare const apiKeyTrustMillis = 1000;
declare const ApiKeys_base: Effect.Service.Class<ApiKeys, "ApiKeys/Repo", {
    readonly scoped: Effect.Effect<{
        readonly list: (environmentId: string, cursor: string | undefined, limit: number) => Effect.Effect<{
            items: ReadonlyArray<ApiKey>;
            nextCursor: string | null;
        }, ValidationError>;
        readonly create: (actor: Actor, environmentId: string, key: NewKey) => Effect.Effect<{
            id: string;
            name: string;
            prefix: "pwk" | "wrk";
            role: KeyRole | null;
            token: string;
            createdAt: Date;
        }>;
        readonly remove: (actor: Actor, environmentId: string, keyId: string) => Effect.Effect<void, NotFound>;
        readonly authenticate: (token: string) => Effect.Effect<Option.Option<KeyIdentity>>;
        readonly forgetEnvironment: (environmentId: string) => Effect.Effect<void>;
    }, never, SqlClient.SqlClient | import("effect/Scope").Scope | Notifications | AuditLog>;
    readonly dependencies: readonly [import("effect/Layer").Layer<AuditLog, never, SqlClient.SqlClient>];
}>;
export declare class ApiKeys extends ApiKeys_base {
}
export {};
//# sourceMappingURL=ApiKeys.d.ts.map