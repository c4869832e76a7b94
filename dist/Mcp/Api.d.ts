import { HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, HttpApiSecurity } from "@effect/platform";
import * as Context from "effect/Context";
import * as Schema from "effect/Schema";
import { Forbidden, Unauthorized } from "../Domain/Errors.js";
/** What a valid `mcp_` token grants: one live trigger, in its environment. */
export interface McpGrant {
    readonly triggerId: string;
    readonly environmentId: string;
}
declare const CurrentMcpGrant_base: Context.TagClass<CurrentMcpGrant, "Mcp/CurrentGrant", McpGrant>;
export declare class CurrentMcpGrant extends CurrentMcpGrant_base {
}
declare const McpAuthentication_base: HttpApiMiddleware.TagClass.BaseSecurity<McpAuthentication, "Mcp/Authentication", {
    readonly failure: typeof Unauthorized;
    readonly provides: typeof CurrentMcpGrant;
    readonly security: {
        readonly mcpToken: HttpApiSecurity.Bearer;
    };
}, {
    readonly mcpToken: (_: import("effect/Redacted").Redacted<string>) => import("effect/Effect").Effect<McpGrant, Unauthorized, import("@effect/platform/HttpRouter").HttpRouter.Provided>;
}, {
    readonly mcpToken: HttpApiSecurity.Bearer;
}>;
/** `Authorization: Bearer mcp_…`, checked against the database on every request. */
export declare class McpAuthentication extends McpAuthentication_base {
}
declare const MethodNotAllowed_base: Schema.Class<MethodNotAllowed, {
    error: typeof Schema.String;
}, Schema.Struct.Encoded<{
    error: typeof Schema.String;
}>, never, {
    readonly error: string;
}, {}, {}>;
export declare class MethodNotAllowed extends MethodNotAllowed_base {
}
declare const McpApi_base: HttpApiGroup.HttpApiGroup<"mcp", HttpApiEndpoint.HttpApiEndpoint<"call", "POST", never, never, {
    readonly id?: string | number | undefined;
    readonly method: string;
    readonly jsonrpc: "2.0";
    readonly params?: {
        readonly [x: string]: unknown;
    } | undefined;
}, never, void | {
    readonly id: string | number;
    readonly jsonrpc: "2.0";
    readonly result: {
        readonly [x: string]: unknown;
    };
} | {
    readonly error: {
        readonly message: string;
        readonly code: number;
        readonly data?: unknown;
    };
    readonly id: string | number | null;
    readonly jsonrpc: "2.0";
}, Unauthorized | Forbidden | {
    readonly error: {
        readonly message: string;
        readonly code: number;
        readonly data?: unknown;
    };
    readonly id: string | number | null;
    readonly jsonrpc: "2.0";
}, McpAuthentication, never> | HttpApiEndpoint.HttpApiEndpoint<"stream", "GET", never, never, never, never, void, MethodNotAllowed, never, never>, never, never, false>;
export declare class McpApi extends McpApi_base {
}
export {};
//# sourceMappingURL=Api.d.ts.map