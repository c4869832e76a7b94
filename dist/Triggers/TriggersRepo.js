import * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import { NotFound } from "../Domain/Errors.js";
import { Policy } from "../Tenancy/Policy.js";
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Path ids arrive as plain strings; a malformed one names nothing (404), it must not reach a uuid column. */
export const isUuid = (value) => uuidPattern.test(value);
export const activeRunStatuses = ["queued", "assigned", "claimed", "running"];
/**
 * Data access for triggers. A soft-deleted trigger is invisible to every
 * query here: other features (runs, webhook deliveries) use `findVisible` to
 * answer 404 for it exactly as for a trigger that never existed.
 */
export class TriggersRepo extends Effect.Service()("Triggers/Repo", {
    effect: Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient;
        const policy = yield* Policy;
        /** The trigger when it exists and is not deleted; no access check. */
        const findActive = (id) => !isUuid(id) ? Effect.succeedNone : sql `SELECT * FROM triggers WHERE id = ${id} AND deleted_at IS NULL`.pipe(Effect.map((rows) => Option.fromNullable(rows[0])), Effect.orDie, Effect.withSpan("TriggersRepo.findActive"));
        /**
         * The trigger when it exists, is not deleted and the caller has at least
         * `min` in its environment: 404 when missing, deleted or not visible, 403
         * when visible but below the role.
         */
        const findVisible = (id, min) => Effect.gen(function* () {
            const row = yield* findActive(id);
            if (Option.isNone(row))
                return yield* Effect.fail(NotFound.of("trigger"));
            yield* policy.requireRole(row.value.environment_id, min, "trigger");
            return row.value;
        });
        const insert = (id, environmentId, t) => sql `
        INSERT INTO triggers (id, environment_id, name, description, worker_id, input, timeout_seconds,
                              heartbeat_timeout_seconds, max_retries, webhook_url, webhook_secret_enc)
        VALUES (${id}, ${environmentId}, ${t.name}, ${t.description}, ${t.worker_id}, ${jsonb(t.input)}::jsonb,
                ${t.timeout_seconds}, ${t.heartbeat_timeout_seconds}, ${t.max_retries}, ${t.webhook_url},
                ${t.webhook_secret_enc})
        RETURNING *`.pipe(Effect.map((rows) => rows[0]), Effect.orDie);
        /** Locks the row for a read-modify-write inside the caller's transaction. */
        const lockActive = (id) => sql `SELECT * FROM triggers WHERE id = ${id} AND deleted_at IS NULL FOR UPDATE`.pipe(Effect.map((rows) => Option.fromNullable(rows[0])), Effect.orDie);
        const update = (id, t) => sql `
        UPDATE triggers SET name = ${t.name}, description = ${t.description}, worker_id = ${t.worker_id},
          input = ${jsonb(t.input)}::jsonb, timeout_seconds = ${t.timeout_seconds},
          heartbeat_timeout_seconds = ${t.heartbeat_timeout_seconds}, max_retries = ${t.max_retries},
          webhook_url = ${t.webhook_url}, webhook_secret_enc = ${t.webhook_secret_enc}, updated_at = now()
        WHERE id = ${id} AND deleted_at IS NULL
        RETURNING *`.pipe(Effect.map((rows) => Option.fromNullable(rows[0])), Effect.orDie);
        /**
         * Soft delete in one conditional statement, so a run requested at the same
         * moment either lands before (and blocks the delete) or finds the trigger
         * gone. False when the trigger is missing, deleted or still has active runs.
         */
        const softDelete = (id) => sql `
        UPDATE triggers SET deleted_at = now(), updated_at = now()
        WHERE id = ${id} AND deleted_at IS NULL
          AND NOT EXISTS (
            SELECT 1 FROM runs WHERE trigger_id = ${id} AND status IN ${sql.in(activeRunStatuses)})
        RETURNING id`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie);
        /** Replaces the MCP token hash; false when the trigger is missing or deleted. */
        const setMcpTokenHash = (id, hash) => sql `
        UPDATE triggers SET mcp_token_hash = ${hash} WHERE id = ${id} AND deleted_at IS NULL RETURNING id`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie);
        /** Newest first; `limit + 1` rows so the caller can tell whether there is a next page. */
        const list = (environmentId, options) => sql `
        SELECT * FROM triggers
        WHERE ${sql.and([
            sql `environment_id = ${environmentId}`,
            sql `deleted_at IS NULL`,
            ...(options.after === undefined ? [] : [sql `id < ${options.after}`]),
            ...(options.workerId === undefined ? [] : [sql `worker_id = ${options.workerId}`])
        ])}
        ORDER BY id DESC
        LIMIT ${options.limit + 1}`.pipe(Effect.orDie, Effect.withSpan("TriggersRepo.list"));
        return { findActive, findVisible, insert, lockActive, update, softDelete, setMcpTokenHash, list };
    }),
    dependencies: [Policy.Default]
}) {
}
/** `input` is any JSON, stored as jsonb; an absent input is SQL NULL. */
const jsonb = (value) => value === undefined || value === null ? null : JSON.stringify(value);
//# sourceMappingURL=TriggersRepo.js.map