import * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import { AppConfig } from "../Config/AppConfig.js";
import { Worker } from "./Api.js";
export const toWorker = (row) => new Worker({
    id: row.id,
    environmentId: row.environment_id,
    workspaceId: row.workspace_id,
    label: row.label,
    status: row.online ? "online" : "offline",
    lastSeenAt: row.last_seen_at,
    createdAt: row.created_at
});
/** Data access for the worker registry; the `wkt_` token is stored only as its SHA-256. */
export class WorkersRepo extends Effect.Service()("Workers/Repo", {
    effect: Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient;
        const config = yield* AppConfig;
        const offlineAfter = config.workerOfflineAfterSeconds;
        const onlineExpr = sql `(w.last_seen_at > now() - make_interval(secs => ${offlineAfter}))`;
        const columns = sql `w.id, w.environment_id, w.workspace_id, w.label, w.last_seen_at, w.created_at, ${onlineExpr} AS online`;
        const filters = (options) => [
            ...(options.status === "online" ? [onlineExpr] : options.status === "offline" ? [sql `NOT ${onlineExpr}`] : []),
            ...(options.after === undefined ? [] : [sql `w.id < ${options.after}`])
        ];
        /**
         * Consumes a `wrk_` registration token: one conditional UPDATE, so of two
         * concurrent registrations with one token exactly one sees the row.
         */
        const consumeRegistrationToken = (tokenHash) => sql `
        UPDATE api_keys k SET consumed_at = now()
        FROM environments e
        WHERE k.token_hash = ${tokenHash} AND k.prefix = 'wrk' AND k.consumed_at IS NULL AND e.id = k.environment_id
        RETURNING k.id, k.environment_id, e.workspace_id`.pipe(Effect.map((rows) => Option.fromNullable(rows[0])), Effect.orDie);
        const insert = (worker) => sql `
        INSERT INTO workers AS w (id, environment_id, workspace_id, label, token_hash, registration_key_id)
        VALUES (${worker.id}, ${worker.environmentId}, ${worker.workspaceId}, ${worker.label}, ${worker.tokenHash},
                ${worker.registrationKeyId})
        RETURNING ${columns}`.pipe(Effect.map((rows) => rows[0]), Effect.orDie);
        const findInWorkspace = (workspaceId, workerId) => sql `SELECT ${columns} FROM workers w WHERE w.id = ${workerId} AND w.workspace_id = ${workspaceId}`.pipe(Effect.map((rows) => Option.fromNullable(rows[0])), Effect.orDie);
        const setLabel = (workerId, label) => sql `UPDATE workers AS w SET label = ${label} WHERE w.id = ${workerId} RETURNING ${columns}`.pipe(Effect.map((rows) => Option.fromNullable(rows[0])), Effect.orDie);
        /** Newest first, `limit + 1` rows. */
        const listEnvironment = (environmentId, options) => sql `
        SELECT ${columns} FROM workers w
        WHERE ${sql.and([sql `w.environment_id = ${environmentId}`, ...filters(options)])}
        ORDER BY w.id DESC LIMIT ${options.limit + 1}`.pipe(Effect.orDie, Effect.withSpan("WorkersRepo.listEnvironment"));
        /** The workers of the workspace's environments where the user is a member (any role is viewer+). */
        const listWorkspaceForUser = (workspaceId, userId, options) => sql `
        SELECT ${columns} FROM workers w
        JOIN members m ON m.environment_id = w.environment_id AND m.user_id = ${userId}
        WHERE ${sql.and([sql `w.workspace_id = ${workspaceId}`, ...filters(options)])}
        ORDER BY w.id DESC LIMIT ${options.limit + 1}`.pipe(Effect.orDie, Effect.withSpan("WorkersRepo.listWorkspace"));
        /** The user owns the workspace or is a member of one of its environments. */
        const userSeesWorkspace = (workspaceId, userId) => sql `
        SELECT EXISTS (SELECT 1 FROM workspaces WHERE id = ${workspaceId} AND owner_id = ${userId})
            OR EXISTS (SELECT 1 FROM members m JOIN environments e ON e.id = m.environment_id
                       WHERE e.workspace_id = ${workspaceId} AND m.user_id = ${userId}) AS visible`.pipe(Effect.map((rows) => rows[0]?.visible === true), Effect.orDie);
        const workspaceOfEnvironment = (environmentId) => sql `SELECT workspace_id FROM environments WHERE id = ${environmentId}`.pipe(Effect.map((rows) => Option.fromNullable(rows[0]?.workspace_id)), Effect.orDie);
        return {
            consumeRegistrationToken,
            insert,
            findInWorkspace,
            setLabel,
            listEnvironment,
            listWorkspaceForUser,
            userSeesWorkspace,
            workspaceOfEnvironment
        };
    })
}) {
}
//# sourceMappingURL=WorkersRepo.js.map