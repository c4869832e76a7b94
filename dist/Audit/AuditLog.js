import * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
import { uuidv7 } from "../Crypto/Ids.js";
/** How an actor is stored (`actor_type`, `actor_id`); exported for statements that write their audit row in a CTE. */
export const actorColumns = (actor) => {
    switch (actor._tag) {
        case "User":
            return { type: "user", id: actor.userId };
        case "ApiKey":
            return { type: "api_key", id: actor.keyId };
        case "Mcp":
            return { type: "mcp", id: actor.triggerId };
        case "Worker":
            return { type: "worker", id: actor.workerId };
        case "System":
            return { type: "system", id: null };
    }
};
/**
 * Appends audit records. Uses the ambient `SqlClient`, so a record written
 * inside `sql.withTransaction` commits or rolls back with the mutation.
 */
export class AuditLog extends Effect.Service()("Audit/AuditLog", {
    effect: Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient;
        const record = (entry) => {
            const actor = actorColumns(entry.actor);
            return sql `
        INSERT INTO audit_log (id, environment_id, actor_type, actor_id, action, target_type, target_id, metadata)
        VALUES (${uuidv7()}, ${entry.environmentId}, ${actor.type}, ${actor.id}, ${entry.action},
                ${entry.targetType}, ${entry.targetId}, ${JSON.stringify(entry.metadata ?? {})}::jsonb)`.pipe(Effect.asVoid, Effect.orDie, Effect.withSpan("AuditLog.record"));
        };
        return { record };
    })
}) {
}
//# sourceMappingURL=AuditLog.js.map