import * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
import type { Actor } from "../Auth/Security.js";
export type AuditAction = "environment.updated" | "member.added" | "member.role_changed" | "member.removed" | "api_key.created" | "api_key.deleted" | "trigger.created" | "trigger.updated" | "trigger.deleted" | "trigger.mcp_token_rotated" | "run.requested" | "worker.registered" | "worker.label_changed";
export type AuditActor = Actor | {
    readonly _tag: "Worker";
    readonly workerId: string;
} | {
    readonly _tag: "System";
};
export interface AuditEntry {
    readonly environmentId: string;
    readonly actor: AuditActor;
    readonly action: AuditAction;
    readonly targetType: string;
    readonly targetId: string | null;
    /** Never a secret or token: callers pass only names, roles and flags. */
    readonly metadata?: Record<string, unknown>;
}
/** How an actor is stored (`actor_type`, `actor_id`); exported for statements that write their audit row in a CTE. */
export declare const actorColumns: (actor: AuditActor) => {
    type: string;
    id: string | null;
};
declare const AuditLog_base: Effect.Service.Class<AuditLog, "Audit/AuditLog", {
    readonly effect: Effect.Effect<{
        readonly record: (entry: AuditEntry) => Effect.Effect<void>;
    }, never, SqlClient.SqlClient>;
}>;
/**
 * Appends audit records. Uses the ambient `SqlClient`, so a record written
 * inside `sql.withTransaction` commits or rolls back with the mutation.
 */
export declare class AuditLog extends AuditLog_base {
}
export {};
//# sourceMappingURL=AuditLog.d.ts.map