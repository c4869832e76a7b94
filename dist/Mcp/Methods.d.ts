import * as Effect from "effect/Effect";
import { TriggersRepo } from "../Triggers/TriggersRepo.js";
import type { McpGrant } from "./Api.js";
import * as JsonRpc from "./JsonRpc.js";
import { McpTools } from "./Tools.js";
/** Newest first; `initialize` answers the client's revision when it is one of these, else the newest. */
export declare const protocolVersions: readonly ["2025-11-25", "2025-06-18", "2025-03-26"];
export declare const serverInfo: {
    readonly name: "pipeline-trigger-service";
    readonly title: "Pipeline Trigger Service";
    readonly version: "1";
};
declare const McpMethods_base: Effect.Service.Class<McpMethods, "Mcp/Methods", {
    readonly effect: Effect.Effect<{
        readonly answer: (grant: McpGrant, request: {
            id: JsonRpc.RequestId;
            method: string;
            params: Record<string, unknown>;
        }) => Effect.Effect<{
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
        }, never, never>;
    }, never, TriggersRepo | McpTools>;
}>;
/**
 * The MCP methods this server answers. Stateless: no session is kept, so any
 * instance answers any request, and nothing needs `initialize` to have come
 * first on this instance (the token, checked on every request, is the state).
 */
export declare class McpMethods extends McpMethods_base {
}
export {};
//# sourceMappingURL=Methods.d.ts.map