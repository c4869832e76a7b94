import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform";
import * as Schema from "effect/Schema";
import { Authentication } from "../Auth/Security.js";
import { Conflict, Forbidden, NotFound } from "../Domain/Errors.js";
declare const Trigger_base: Schema.Class<Trigger, {
    id: typeof Schema.UUID;
    environmentId: typeof Schema.UUID;
    name: typeof Schema.String;
    description: Schema.NullOr<typeof Schema.String>;
    workerId: Schema.NullOr<typeof Schema.UUID>;
    input: Schema.SchemaClass<unknown, unknown, never>;
    timeoutSeconds: typeof Schema.Int;
    heartbeatTimeoutSeconds: typeof Schema.Int;
    maxRetries: typeof Schema.Int;
    webhookUrl: Schema.NullOr<typeof Schema.String>;
    hasWebhookSecret: typeof Schema.Boolean;
    createdAt: typeof Schema.Date;
    updatedAt: typeof Schema.Date;
}, Schema.Struct.Encoded<{
    id: typeof Schema.UUID;
    environmentId: typeof Schema.UUID;
    name: typeof Schema.String;
    description: Schema.NullOr<typeof Schema.String>;
    workerId: Schema.NullOr<typeof Schema.UUID>;
    input: Schema.SchemaClass<unknown, unknown, never>;
    timeoutSeconds: typeof Schema.Int;
    heartbeatTimeoutSeconds: typeof Schema.Int;
    maxRetries: typeof Schema.Int;
    webhookUrl: Schema.NullOr<typeof Schema.String>;
    hasWebhookSecret: typeof Schema.Boolean;
    createdAt: typeof Schema.Date;
    updatedAt: typeof Schema.Date;
}>, never, {
    readonly description: string | null;
} & {
    readonly id: string;
} & {
    readonly name: string;
} & {
    readonly createdAt: Date;
} & {
    readonly updatedAt: Date;
} & {
    readonly environmentId: string;
} & {
    readonly workerId: string | null;
} & {
    readonly input: unknown;
} & {
    readonly timeoutSeconds: number;
} & {
    readonly heartbeatTimeoutSeconds: number;
} & {
    readonly maxRetries: number;
} & {
    readonly hasWebhookSecret: boolean;
} & {
    readonly webhookUrl: string | null;
}, {}, {}>;
/** A trigger as every read returns it: never the webhook secret or the MCP token. */
export declare class Trigger extends Trigger_base {
}
/**
 * Text Postgres can store as given: no NUL character (text and jsonb refuse
 * it) and no unpaired surrogate (it would be silently replaced in text and is
 * refused in jsonb).
 */
export declare const StorableText: Schema.filter<typeof Schema.String>;
/** Any JSON value that jsonb stores unchanged, nested at most 64 levels. */
export declare const JsonInput: Schema.refine<unknown, typeof Schema.Unknown>;
export declare const WebhookUrl: Schema.filter<Schema.filter<Schema.filter<typeof Schema.String>>>;
/** Write-only. Empty means "no change" (PATCH) or "none" (create). */
export declare const WebhookSecret: Schema.filter<Schema.filter<Schema.filter<typeof Schema.String>>>;
export declare const CreateTrigger: Schema.Struct<{
    name: Schema.transform<typeof Schema.Trim, Schema.filter<Schema.filter<Schema.filter<typeof Schema.String>>>>;
    description: Schema.optional<Schema.NullOr<Schema.filter<Schema.filter<typeof Schema.String>>>>;
    workerId: Schema.optional<Schema.NullOr<Schema.refine<string, typeof Schema.String>>>;
    input: Schema.optional<Schema.refine<unknown, typeof Schema.Unknown>>;
    timeoutSeconds: Schema.optional<Schema.refine<number, Schema.filter<typeof Schema.Number>>>;
    heartbeatTimeoutSeconds: Schema.optional<Schema.refine<number, Schema.filter<typeof Schema.Number>>>;
    maxRetries: Schema.optional<Schema.refine<number, Schema.filter<typeof Schema.Number>>>;
    webhookUrl: Schema.optional<Schema.NullOr<Schema.filter<Schema.filter<Schema.filter<typeof Schema.String>>>>>;
    webhookSecret: Schema.optional<Schema.NullOr<Schema.filter<Schema.filter<Schema.filter<typeof Schema.String>>>>>;
}>;
/** Any subset; `null` clears the nullable fields (`webhookUrl: null` removes the webhook). */
export declare const PatchTrigger: Schema.Struct<{
    name: Schema.optional<Schema.transform<typeof Schema.Trim, Schema.filter<Schema.filter<Schema.filter<typeof Schema.String>>>>>;
    description: Schema.optional<Schema.NullOr<Schema.filter<Schema.filter<typeof Schema.String>>>>;
    workerId: Schema.optional<Schema.NullOr<Schema.refine<string, typeof Schema.String>>>;
    input: Schema.optional<Schema.refine<unknown, typeof Schema.Unknown>>;
    timeoutSeconds: Schema.optional<Schema.refine<number, Schema.filter<typeof Schema.Number>>>;
    heartbeatTimeoutSeconds: Schema.optional<Schema.refine<number, Schema.filter<typeof Schema.Number>>>;
    maxRetries: Schema.optional<Schema.refine<number, Schema.filter<typeof Schema.Number>>>;
    webhookUrl: Schema.optional<Schema.NullOr<Schema.filter<Schema.filter<Schema.filter<typeof Schema.String>>>>>;
    webhookSecret: Schema.optional<Schema.NullOr<Schema.filter<Schema.filter<Schema.filter<typeof Schema.String>>>>>;
}>;
export declare const ListTriggersParams: Schema.Struct<{
    cursor: Schema.optional<typeof Schema.String>;
    limit: Schema.optional<Schema.refine<number, Schema.filter<typeof Schema.NumberFromString>>>;
    workerId: Schema.optional<Schema.refine<string, typeof Schema.String>>;
}>;
declare const TriggersApi_base: HttpApiGroup.HttpApiGroup<"triggers", HttpApiEndpoint.HttpApiEndpoint<"list", "GET", {
    readonly envId: string;
}, {
    readonly limit?: number | undefined;
    readonly cursor?: string | undefined;
    readonly workerId?: string | undefined;
}, never, never, {
    readonly items: readonly Trigger[];
    readonly nextCursor: string | null;
}, Forbidden | NotFound, never, never> | HttpApiEndpoint.HttpApiEndpoint<"create", "POST", {
    readonly envId: string;
}, never, {
    readonly description?: string | null | undefined;
    readonly name: string;
    readonly workerId?: string | null | undefined;
    readonly input?: unknown;
    readonly timeoutSeconds?: number | undefined;
    readonly heartbeatTimeoutSeconds?: number | undefined;
    readonly maxRetries?: number | undefined;
    readonly webhookUrl?: string | null | undefined;
    readonly webhookSecret?: string | null | undefined;
}, never, Trigger, Forbidden | NotFound, never, never> | HttpApiEndpoint.HttpApiEndpoint<"get", "GET", {
    readonly id: string;
}, never, never, never, Trigger, NotFound, never, never> | HttpApiEndpoint.HttpApiEndpoint<"update", "PATCH", {
    readonly id: string;
}, never, {
    readonly description?: string | null | undefined;
    readonly name?: string | undefined;
    readonly workerId?: string | null | undefined;
    readonly input?: unknown;
    readonly timeoutSeconds?: number | undefined;
    readonly heartbeatTimeoutSeconds?: number | undefined;
    readonly maxRetries?: number | undefined;
    readonly webhookUrl?: string | null | undefined;
    readonly webhookSecret?: string | null | undefined;
}, never, Trigger, Forbidden | NotFound, never, never> | HttpApiEndpoint.HttpApiEndpoint<"delete", "DELETE", {
    readonly id: string;
}, never, never, never, void, Forbidden | NotFound | Conflict, never, never> | HttpApiEndpoint.HttpApiEndpoint<"rotateMcpToken", "POST", {
    readonly id: string;
}, never, never, never, {
    readonly mcpToken: string;
}, Forbidden | NotFound, never, never>, import("../Domain/Errors.js").Unauthorized | Forbidden, Authentication, false>;
export declare class TriggersApi extends TriggersApi_base {
}
export {};
//# sourceMappingURL=Api.d.ts.map