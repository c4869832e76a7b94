import * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import { AuditLog } from "../Audit/AuditLog.js";
import { CurrentActor } from "../Auth/Security.js";
import { uuidv7 } from "../Crypto/Ids.js";
import { generate, sha256 } from "../Crypto/Tokens.js";
import { NotFound, Unauthorized } from "../Domain/Errors.js";
import { decodeCursor, defaultLimit, page } from "../Domain/Pagination.js";
import { Policy } from "../Tenancy/Policy.js";
import { isUuid } from "../Triggers/TriggersRepo.js";
import { toWorker, WorkersRepo } from "./WorkersRepo.js";
const invalidRegistration = new Unauthorized({ error: "invalid or already used registration token" });
/** The worker registry: registration, listings and labels. */
export class Workers extends Effect.Service()("Workers/Workers", {
    effect: Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient;
        const repo = yield* WorkersRepo;
        const policy = yield* Policy;
        const audit = yield* AuditLog;
        /**
         * Public: the `wrk_` token is the credential. Consuming it, creating the
         * worker and the audit record commit together, so a failure leaves the
         * token usable.
         */
        const register = Effect.fn("Workers.register")(function* (registrationToken, label) {
            if (!registrationToken.startsWith("wrk_"))
                return yield* Effect.fail(invalidRegistration);
            const token = generate("wkt");
            const id = uuidv7();
            const row = yield* sql.withTransaction(Effect.gen(function* () {
                const key = yield* repo.consumeRegistrationToken(sha256(registrationToken));
                if (Option.isNone(key))
                    return yield* Effect.fail(invalidRegistration);
                const row = yield* repo.insert({
                    id,
                    environmentId: key.value.environment_id,
                    workspaceId: key.value.workspace_id,
                    label: label ?? `worker-${id.slice(-8)}`,
                    tokenHash: sha256(token),
                    registrationKeyId: key.value.id
                });
                yield* audit.record({
                    environmentId: row.environment_id,
                    actor: { _tag: "Worker", workerId: id },
                    action: "worker.registered",
                    targetType: "worker",
                    targetId: id,
                    metadata: { label: row.label, registrationKeyId: key.value.id }
                });
                return row;
            })).pipe(Effect.catchTag("SqlError", Effect.die));
            yield* Effect.logInfo("worker registered").pipe(Effect.annotateLogs({ workerId: id, environmentId: row.environment_id }));
            return { worker: toWorker(row), token };
        });
        const listEnvironment = Effect.fn("Workers.listEnvironment")(function* (environmentId, params) {
            if (!isUuid(environmentId))
                return yield* Effect.fail(NotFound.of("environment"));
            yield* policy.requireRole(environmentId, "viewer");
            const after = yield* decodeCursor(params.cursor);
            const limit = params.limit ?? defaultLimit;
            const rows = yield* repo.listEnvironment(environmentId, { status: params.status, after, limit });
            const result = page(rows, limit);
            return { items: result.items.map(toWorker), nextCursor: result.nextCursor };
        });
        /**
         * Every environment of the workspace where the caller is viewer+; a `pwk_`
         * key sees only its own environment. A workspace the caller cannot see is 404.
         */
        const listWorkspace = Effect.fn("Workers.listWorkspace")(function* (workspaceId, params) {
            const notFound = NotFound.of("workspace");
            if (!isUuid(workspaceId))
                return yield* Effect.fail(notFound);
            const actor = yield* CurrentActor;
            const after = yield* decodeCursor(params.cursor);
            const limit = params.limit ?? defaultLimit;
            const options = { status: params.status, after, limit };
            let rows;
            if (actor._tag === "ApiKey" || actor._tag === "Mcp") {
                const ws = yield* repo.workspaceOfEnvironment(actor.environmentId);
                if (Option.getOrUndefined(ws) !== workspaceId)
                    return yield* Effect.fail(notFound);
                rows = yield* repo.listEnvironment(actor.environmentId, options);
            }
            else {
                if (!(yield* repo.userSeesWorkspace(workspaceId, actor.userId)))
                    return yield* Effect.fail(notFound);
                rows = yield* repo.listWorkspaceForUser(workspaceId, actor.userId, options);
            }
            const result = page(rows, limit);
            return { items: result.items.map(toWorker), nextCursor: result.nextCursor };
        });
        /** admin+ on the worker's environment; a worker outside the workspace is 404. */
        const updateLabel = Effect.fn("Workers.updateLabel")(function* (workspaceId, workerId, label) {
            if (!isUuid(workspaceId) || !isUuid(workerId))
                return yield* Effect.fail(NotFound.of("worker"));
            const found = yield* repo.findInWorkspace(workspaceId, workerId);
            if (Option.isNone(found))
                return yield* Effect.fail(NotFound.of("worker"));
            yield* policy.requireRole(found.value.environment_id, "admin", "worker");
            const actor = yield* CurrentActor;
            const row = yield* sql.withTransaction(Effect.gen(function* () {
                const updated = yield* repo.setLabel(workerId, label);
                if (Option.isNone(updated))
                    return yield* Effect.fail(NotFound.of("worker"));
                yield* audit.record({
                    environmentId: updated.value.environment_id,
                    actor,
                    action: "worker.label_changed",
                    targetType: "worker",
                    targetId: workerId,
                    metadata: { previousLabel: found.value.label, label }
                });
                return updated.value;
            })).pipe(Effect.catchTag("SqlError", Effect.die));
            return toWorker(row);
        });
        return { register, listEnvironment, listWorkspace, updateLabel };
    }),
    dependencies: [WorkersRepo.Default, Policy.Default, AuditLog.Default]
}) {
}
//# sourceMappingURL=Workers.js.map