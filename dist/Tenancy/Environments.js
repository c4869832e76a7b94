import * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
import { ApiKeys } from "../ApiKeys/ApiKeys.js";
import { AuditLog } from "../Audit/AuditLog.js";
import { Conflict, NotFound } from "../Domain/Errors.js";
import { activeStatuses } from "../Runs/Run.js";
import { toEnvironment } from "./Workspaces.js";
/** Renaming and deleting environments; callers check the role first (see Policy). */
export class Environments extends Effect.Service()("Tenancy/Environments", {
    effect: Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient;
        const audit = yield* AuditLog;
        // Required, not a dependency: it must be the instance authentication uses (see `App.ServicesLive`).
        const apiKeys = yield* ApiKeys;
        const rename = (actor, id, name) => Effect.gen(function* () {
            const previous = yield* sql `SELECT name FROM environments WHERE id = ${id} FOR UPDATE`;
            if (previous.length === 0)
                return yield* Effect.fail(NotFound.of("environment"));
            const rows = yield* sql `
          UPDATE environments SET name = ${name}, updated_at = now() WHERE id = ${id}
          RETURNING id, workspace_id, name, created_at, updated_at`;
            yield* audit.record({
                environmentId: id,
                actor,
                action: "environment.updated",
                targetType: "environment",
                targetId: id,
                metadata: { name, previousName: previous[0].name }
            });
            return toEnvironment(rows[0]);
        }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die), Effect.withSpan("Environments.rename"));
        /**
         * Deletes the environment and, by cascade, everything in it. The row lock
         * makes the "no active runs" check race-free: a run being inserted holds a
         * key-share lock on the environment, so we wait for it and then see it.
         */
        const remove = (id) => Effect.gen(function* () {
            const locked = yield* sql `SELECT id FROM environments WHERE id = ${id} FOR UPDATE`;
            if (locked.length === 0)
                return yield* Effect.fail(NotFound.of("environment"));
            // Active: queued (no worker yet) or held by one of the environment's
            // workers, and not ended; each half has its own partial index.
            const active = yield* sql `
          SELECT ((SELECT count(*) FROM runs
                   WHERE environment_id = ${id} AND worker_id IS NULL AND ended_at IS NULL AND status IN ${sql.in(activeStatuses)})
                + (SELECT count(*) FROM runs r JOIN workers w ON w.id = r.worker_id
                   WHERE w.environment_id = ${id} AND r.ended_at IS NULL AND r.status IN ${sql.in(activeStatuses)}))::int AS n`;
            const n = active[0]?.n ?? 0;
            if (n > 0) {
                return yield* Effect.fail(new Conflict({ error: `environment has ${n} active run(s); wait for them to finish` }));
            }
            yield* sql `DELETE FROM environments WHERE id = ${id}`;
            yield* Effect.logInfo("environment deleted").pipe(Effect.annotateLogs({ environmentId: id }));
        }).pipe(sql.withTransaction, 
        // Its API keys went with it (ON DELETE CASCADE); after the commit, so none is verified again in between.
        Effect.zipLeft(apiKeys.forgetEnvironment(id)), Effect.catchTag("SqlError", Effect.die), Effect.withSpan("Environments.remove"));
        return { rename, remove };
    }),
    dependencies: [AuditLog.Default]
}) {
}
//# sourceMappingURL=Environments.js.map