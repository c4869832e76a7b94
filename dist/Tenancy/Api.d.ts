import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform";
import * as Schema from "effect/Schema";
import { Authentication, UserAuthentication } from "../Auth/Security.js";
import { Conflict, Forbidden, NotFound } from "../Domain/Errors.js";
/** Names are trimmed; blank, over 200 characters or containing NUL is a 400. */
export declare const Name: Schema.transform<typeof Schema.Trim, Schema.filter<Schema.filter<Schema.filter<typeof Schema.String>>>>;
export declare const Workspace: Schema.Struct<{
    id: typeof Schema.UUID;
    name: typeof Schema.String;
    ownerId: typeof Schema.UUID;
    createdAt: typeof Schema.Date;
}>;
export type Workspace = typeof Workspace.Type;
export declare const Environment: Schema.Struct<{
    id: typeof Schema.UUID;
    workspaceId: typeof Schema.UUID;
    name: typeof Schema.String;
    createdAt: typeof Schema.Date;
    updatedAt: typeof Schema.Date;
}>;
export type Environment = typeof Environment.Type;
export declare const Member: Schema.Struct<{
    userId: typeof Schema.UUID;
    email: typeof Schema.String;
    role: Schema.Literal<["viewer", "operator", "admin", "owner"]>;
    createdAt: typeof Schema.Date;
}>;
export type Member = typeof Member.Type;
/** `cursor` and `limit` of every list endpoint. */
export declare const PageParams: Schema.Struct<{
    cursor: Schema.optional<typeof Schema.String>;
    limit: Schema.optional<Schema.refine<number, Schema.filter<typeof Schema.NumberFromString>>>;
}>;
declare const WorkspacesApi_base: HttpApiGroup.HttpApiGroup<"workspaces", HttpApiEndpoint.HttpApiEndpoint<"create", "POST", never, never, {
    readonly name: string;
}, never, {
    readonly id: string;
    readonly name: string;
    readonly ownerId: string;
    readonly createdAt: Date;
}, never, never, never> | HttpApiEndpoint.HttpApiEndpoint<"list", "GET", never, {
    readonly limit?: number | undefined;
    readonly cursor?: string | undefined;
}, never, never, {
    readonly items: readonly {
        readonly id: string;
        readonly name: string;
        readonly ownerId: string;
        readonly createdAt: Date;
    }[];
    readonly nextCursor: string | null;
}, never, never, never> | HttpApiEndpoint.HttpApiEndpoint<"createEnvironment", "POST", {
    readonly wsId: string;
}, never, {
    readonly name: string;
}, never, {
    readonly id: string;
    readonly name: string;
    readonly createdAt: Date;
    readonly workspaceId: string;
    readonly updatedAt: Date;
}, never, never, never> | HttpApiEndpoint.HttpApiEndpoint<"listEnvironments", "GET", {
    readonly wsId: string;
}, {
    readonly limit?: number | undefined;
    readonly cursor?: string | undefined;
}, never, never, {
    readonly items: readonly {
        readonly id: string;
        readonly name: string;
        readonly createdAt: Date;
        readonly workspaceId: string;
        readonly updatedAt: Date;
    }[];
    readonly nextCursor: string | null;
}, never, never, never>, import("../Domain/Errors.js").Unauthorized | Forbidden | NotFound, UserAuthentication, false>;
/** Workspace routes: session cookie only (an API key belongs to one environment, not a workspace). */
export declare class WorkspacesApi extends WorkspacesApi_base {
}
declare const EnvironmentsApi_base: HttpApiGroup.HttpApiGroup<"environments", HttpApiEndpoint.HttpApiEndpoint<"update", "PATCH", {
    readonly id: string;
}, never, {
    readonly name: string;
}, never, {
    readonly id: string;
    readonly name: string;
    readonly createdAt: Date;
    readonly workspaceId: string;
    readonly updatedAt: Date;
}, never, never, never> | HttpApiEndpoint.HttpApiEndpoint<"delete", "DELETE", {
    readonly id: string;
}, never, never, never, void, Conflict, never, never> | HttpApiEndpoint.HttpApiEndpoint<"listMembers", "GET", {
    readonly envId: string;
}, {
    readonly limit?: number | undefined;
    readonly cursor?: string | undefined;
}, never, never, {
    readonly items: readonly {
        readonly createdAt: Date;
        readonly userId: string;
        readonly email: string;
        readonly role: "viewer" | "operator" | "admin" | "owner";
    }[];
    readonly nextCursor: string | null;
}, never, never, never> | HttpApiEndpoint.HttpApiEndpoint<"addMember", "POST", {
    readonly envId: string;
}, never, {
    readonly userId: string;
    readonly role: "viewer" | "operator" | "admin" | "owner";
}, never, {
    readonly createdAt: Date;
    readonly userId: string;
    readonly email: string;
    readonly role: "viewer" | "operator" | "admin" | "owner";
}, Conflict, never, never> | HttpApiEndpoint.HttpApiEndpoint<"updateMember", "PATCH", {
    readonly userId: string;
    readonly envId: string;
}, never, {
    readonly role: "viewer" | "operator" | "admin" | "owner";
}, never, {
    readonly createdAt: Date;
    readonly userId: string;
    readonly email: string;
    readonly role: "viewer" | "operator" | "admin" | "owner";
}, Conflict, never, never> | HttpApiEndpoint.HttpApiEndpoint<"removeMember", "DELETE", {
    readonly userId: string;
    readonly envId: string;
}, never, never, never, void, Conflict, never, never>, import("../Domain/Errors.js").Unauthorized | Forbidden | NotFound, Authentication, false>;
/** Environment-scoped routes: a session cookie or a `pwk_` key of that environment. */
export declare class EnvironmentsApi extends EnvironmentsApi_base {
}
export {};
//# sourceMappingURL=Api.d.ts.map