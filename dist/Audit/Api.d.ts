import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform";
import * as Schema from "effect/Schema";
import { Authentication } from "../Auth/Security.js";
import { Forbidden, NotFound } from "../Domain/Errors.js";
export declare const AuditRecord: Schema.Struct<{
    id: typeof Schema.UUID;
    environmentId: typeof Schema.UUID;
    actorType: Schema.Literal<["user", "api_key", "worker", "system", "mcp"]>;
    actorId: Schema.NullOr<typeof Schema.UUID>;
    action: typeof Schema.String;
    targetType: typeof Schema.String;
    targetId: Schema.NullOr<typeof Schema.UUID>;
    metadata: Schema.Record$<typeof Schema.String, typeof Schema.Unknown>;
    createdAt: typeof Schema.Date;
}>;
export type AuditRecord = typeof AuditRecord.Type;
export declare const AuditQuery: Schema.Struct<{
    /** One action name. */
    action: Schema.optional<Schema.filter<Schema.Schema.Any>>;
    /** A comma-separated list of action names; combined with `action`, a record matching any of them is listed. */
    actions: Schema.optional<Schema.filter<Schema.Schema.Any>>;
    targetId: Schema.optional<typeof Schema.UUID>;
    cursor: Schema.optional<typeof Schema.String>;
    limit: Schema.optional<Schema.refine<number, Schema.filter<typeof Schema.NumberFromString>>>;
}>;
declare const AuditApi_base: HttpApiGroup.HttpApiGroup<"audit", HttpApiEndpoint.HttpApiEndpoint<"list", "GET", {
    readonly envId: string;
}, {
    readonly limit?: number | undefined;
    readonly cursor?: string | undefined;
    readonly action?: any;
    readonly targetId?: string | undefined;
    readonly actions?: any;
}, never, never, {
    readonly items: readonly {
        readonly id: string;
        readonly createdAt: Date;
        readonly environmentId: string;
        readonly actorType: "user" | "api_key" | "worker" | "system" | "mcp";
        readonly actorId: string | null;
        readonly action: string;
        readonly targetType: string;
        readonly targetId: string | null;
        readonly metadata: {
            readonly [x: string]: unknown;
        };
    }[];
    readonly nextCursor: string | null;
}, never, never, never>, import("../Domain/Errors.js").Unauthorized | Forbidden | NotFound, Authentication, false>;
export declare class AuditApi extends AuditApi_base {
}
export {};
//# sourceMappingURL=Api.d.ts.map