import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform";
import * as Schema from "effect/Schema";
import { Authentication } from "../Auth/Security.js";
import { Forbidden, NotFound } from "../Domain/Errors.js";
/** The roles a `pwk` key can carry: never `owner`. */
export declare const KeyRole: Schema.Literal<["viewer", "operator", "admin"]>;
export type KeyRole = typeof KeyRole.Type;
export declare const KeyPrefix: Schema.Literal<["pwk", "wrk"]>;
export declare const CreateApiKey: Schema.Struct<{
    name: Schema.transform<typeof Schema.Trim, Schema.filter<Schema.filter<Schema.filter<typeof Schema.String>>>>;
    prefix: Schema.Literal<["pwk", "wrk"]>;
    /** `pwk` only; defaults to `operator`. Ignored for `wrk` tokens, which have no role. */
    role: Schema.optional<Schema.NullOr<Schema.Literal<["viewer", "operator", "admin"]>>>;
}>;
/** The creation response: the only place the token is ever shown. */
export declare const CreatedApiKey: Schema.Struct<{
    id: typeof Schema.UUID;
    name: typeof Schema.String;
    prefix: Schema.Literal<["pwk", "wrk"]>;
    role: Schema.NullOr<Schema.Literal<["viewer", "operator", "admin"]>>;
    token: typeof Schema.String;
    createdAt: typeof Schema.Date;
}>;
export declare const ApiKey: Schema.Struct<{
    id: typeof Schema.UUID;
    name: typeof Schema.String;
    prefix: Schema.Literal<["pwk", "wrk"]>;
    role: Schema.NullOr<Schema.Literal<["viewer", "operator", "admin"]>>;
    tokenStart: typeof Schema.String;
    createdAt: typeof Schema.Date;
    lastUsedAt: Schema.NullOr<typeof Schema.Date>;
    consumedAt: Schema.NullOr<typeof Schema.Date>;
}>;
export type ApiKey = typeof ApiKey.Type;
declare const ApiKeysApi_base: HttpApiGroup.HttpApiGroup<"apiKeys", HttpApiEndpoint.HttpApiEndpoint<"list", "GET", {
    readonly envId: string;
}, {
    readonly limit?: number | undefined;
    readonly cursor?: string | undefined;
}, never, never, {
    readonly items: readonly {
        readonly id: string;
        readonly name: string;
        readonly createdAt: Date;
        readonly role: "viewer" | "operator" | "admin" | null;
        readonly prefix: "pwk" | "wrk";
        readonly tokenStart: string;
        readonly lastUsedAt: Date | null;
        readonly consumedAt: Date | null;
    }[];
    readonly nextCursor: string | null;
}, never, never, never> | HttpApiEndpoint.HttpApiEndpoint<"create", "POST", {
    readonly envId: string;
}, never, {
    readonly name: string;
    readonly role?: "viewer" | "operator" | "admin" | null | undefined;
    readonly prefix: "pwk" | "wrk";
}, never, {
    readonly id: string;
    readonly name: string;
    readonly createdAt: Date;
    readonly role: "viewer" | "operator" | "admin" | null;
    readonly prefix: "pwk" | "wrk";
    readonly token: string;
}, never, never, never> | HttpApiEndpoint.HttpApiEndpoint<"delete", "DELETE", {
    readonly envId: string;
    readonly keyId: string;
}, never, never, never, void, never, never, never>, import("../Domain/Errors.js").Unauthorized | Forbidden | NotFound, Authentication, false>;
export declare class ApiKeysApi extends ApiKeysApi_base {
}
export {};
//# sourceMappingURL=Api.d.ts.map