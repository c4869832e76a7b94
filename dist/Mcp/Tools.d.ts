import * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
import { RunRequests } from "../Runs/RunRequests.js";
import { RunsRepo } from "../Runs/RunsRepo.js";
import { RunEvents } from "../Scheduler/RunEvents.js";
import { Policy } from "../Tenancy/Policy.js";
import { TriggersRepo } from "../Triggers/TriggersRepo.js";
import type { McpGrant } from "./Api.js";
declare const ToolFailure_base: new <A extends Record<string, any> = {}>(args: import("effect/Types").VoidIfEmpty<{ readonly [P in keyof A as P extends "_tag" ? never : P]: A[P]; }>) => import("effect/Cause").YieldableError & {
    readonly _tag: "ToolFailure";
} & Readonly<A>;
/** A failure the agent should read (a tool result with `isError: true`), not a protocol error. */
export declare class ToolFailure extends ToolFailure_base<{
    readonly message: string;
}> {
}
/** MCP's `CallToolResult`: the value as JSON text and as structured content. */
export interface ToolResult {
    readonly content: ReadonlyArray<{
        readonly type: "text";
        readonly text: string;
    }>;
    readonly structuredContent?: Record<string, unknown>;
    readonly isError?: boolean;
}
/** How `tools/list` shows a tool. */
export interface ToolListing {
    readonly name: string;
    readonly title: string;
    readonly description: string;
    readonly inputSchema: Record<string, unknown>;
    readonly annotations: {
        readonly readOnlyHint: boolean;
        readonly destructiveHint: boolean;
        readonly idempotentHint: boolean;
        readonly openWorldHint: boolean;
    };
}
declare const McpTools_base: Effect.Service.Class<McpTools, "Mcp/Tools", {
    readonly effect: Effect.Effect<{
        readonly listings: readonly ToolListing[];
        readonly call: (grant: McpGrant, name: string, args: unknown) => Effect.Effect<ToolResult> | undefined;
    }, never, SqlClient.SqlClient | Policy | RunEvents | RunsRepo | RunRequests | TriggersRepo>;
}>;
/**
 * The tools of the MCP endpoint. Each reaches only the granted trigger and
 * its runs (a run of another trigger is "run not found", as a missing one),
 * through the same services and role checks as the REST API, with the caller
 * as an operator of the trigger's environment (audit actor type `mcp`).
 */
export declare class McpTools extends McpTools_base {
}
export {};
//# sourceMappingURL=Tools.d.ts.map