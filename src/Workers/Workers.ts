import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { AuditLog } from "../Audit/AuditLog.js"
import { CurrentActor } from "../Contract/Security.js"
import { uuidv7 } from "../Crypto/Ids.js"
import { generate, sha256 } from "../Crypto/Tokens.js"
import { WorkspaceNotFound } from "../Tenancy/TenancyErrors.js"
import { InvalidRegistrationToken, WorkerNotFound } from "./WorkerErrors.js"
import { decodeCursor, defaultLimit, page } from "../Db/Pagination.js"
import { Policy } from "../Tenancy/Policy.js"
import { type WorkerStatus, WorkersRepo } from "./WorkersRepo.js"
import { workerRevokedChannel } from "../Auth/WorkerTokenTrust.js"


interface ListParams {
  readonly status?: WorkerStatus | undefined
  readonly cursor?: string | undefined
  readonly limit?: number | undefined
}

/** The worker registry: registration, listings, labels, draining and revocation. */
export class Workers extends Effect.Service<Workers>()("Workers/Workers", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* WorkersRepo
    const policy = yield* Policy
    const audit = yield* AuditLog

    /**
     * Public: the `wrk_` token is the credential. Consuming it, creating the
     * worker and the audit record commit together, so a failure leaves the
     * token usable.
     */
    const register = Effect.fn("Workers.register")(function*(registrationToken: string, label: string | undefined) {
      if (!registrationToken.startsWith("wrk_")) return yield* Effect.fail(new InvalidRegistrationToken())
      const token = generate("wkt")
      const id = uuidv7()
      const worker = yield* sql.withTransaction(Effect.gen(function*() {
        const key = yield* repo.consumeRegistrationToken(sha256(registrationToken))
        if (Option.isNone(key)) return yield* Effect.fail(new InvalidRegistrationToken())
        const worker = yield* repo.insert({
          id,
          environmentId: key.value.environment_id,
          workspaceId: key.value.workspace_id,
          label: label ?? `worker-${id.slice(-8)}`,
          tokenHash: sha256(token),
          registrationKeyId: key.value.id
        })
        yield* audit.record({
          environmentId: worker.environmentId,
          actor: { _tag: "Worker", workerId: id },
          action: "worker.registered",
          targetType: "worker",
          targetId: id,
          metadata: { label: worker.label, registrationKeyId: key.value.id }
        })
        return worker
      })).pipe(Effect.catchTag("SqlError", Effect.die))
      yield* Effect.logInfo("worker registered").pipe(Effect.annotateLogs({ workerId: id, environmentId: worker.environmentId }))
      return { worker, token }
    })

    const listEnvironment = Effect.fn("Workers.listEnvironment")(function*(environmentId: string, params: ListParams) {
      yield* policy.requireRole(environmentId, "viewer")
      const after = yield* decodeCursor(params.cursor)
      const limit = params.limit ?? defaultLimit
      const rows = yield* repo.listEnvironment(environmentId, { status: params.status, after, limit })
      return page(rows, limit)
    })

    /**
     * Every environment of the workspace where the caller is viewer+; a `pwk_`
     * key sees only its own environment. A workspace the caller cannot see is 404.
     */
    const listWorkspace = Effect.fn("Workers.listWorkspace")(function*(workspaceId: string, params: ListParams) {
      const actor = yield* CurrentActor
      const after = yield* decodeCursor(params.cursor)
      const limit = params.limit ?? defaultLimit
      const options = { status: params.status, after, limit }
      let rows
      if (actor._tag === "ApiKey" || actor._tag === "Mcp") {
        const ws = yield* repo.workspaceOfEnvironment(actor.environmentId)
        if (Option.getOrUndefined(ws) !== workspaceId) return yield* Effect.fail(new WorkspaceNotFound({ workspaceId }))
        rows = yield* repo.listEnvironment(actor.environmentId, options)
      } else {
        if (!(yield* repo.userSeesWorkspace(workspaceId, actor.userId))) return yield* Effect.fail(new WorkspaceNotFound({ workspaceId }))
        rows = yield* repo.listWorkspaceForUser(workspaceId, actor.userId, options)
      }
      return page(rows, limit)
    })

    /** The worker, when the caller is admin+ on its environment; outside the workspace, or revoked, it is 404. */
    const administered = (workspaceId: string, workerId: string) =>
      Effect.gen(function*() {
        const found = yield* repo.findInWorkspace(workspaceId, workerId)
        if (Option.isNone(found)) return yield* Effect.fail(new WorkerNotFound({ workerId }))
        yield* policy.requireRole(found.value.environmentId, "admin", "worker")
        return found.value
      })

    /**
     * Relabels and/or drains the worker (admin+). A draining worker keeps its
     * runs and is assigned no new ones (see `RunStore/Placement`). Each
     * change is audited with the mutation.
     */
    const update = Effect.fn("Workers.update")(function*(
      workspaceId: string,
      workerId: string,
      change: { readonly label?: string | undefined; readonly draining?: boolean | undefined }
    ) {
      const found = yield* administered(workspaceId, workerId)
      // `administered` answers no revoked worker, so its status tells whether it drains.
      const drainChanged = change.draining !== undefined && change.draining !== (found.status === "draining")
      const actor = yield* CurrentActor
      const worker = yield* sql.withTransaction(Effect.gen(function*() {
        const updated = yield* repo.update(workerId, change)
        if (Option.isNone(updated)) return yield* Effect.fail(new WorkerNotFound({ workerId }))
        const record = (action: "worker.label_changed" | "worker.drain_changed", metadata: Record<string, unknown>) =>
          audit.record({ environmentId: updated.value.environmentId, actor, action, targetType: "worker", targetId: workerId, metadata })
        if (change.label !== undefined) {
          yield* record("worker.label_changed", { previousLabel: found.label, label: change.label })
        }
        if (drainChanged) {
          yield* record("worker.drain_changed", { draining: change.draining })
        }
        return updated.value
      })).pipe(Effect.catchTag("SqlError", Effect.die))
      if (drainChanged) {
        yield* Effect.logInfo(change.draining ? "worker draining" : "worker no longer draining").pipe(
          Effect.annotateLogs({ workerId, environmentId: worker.environmentId })
        )
      }
      return worker
    })

    /**
     * Marks the worker revoked (admin+), audited, and announces it on
     * `workerRevokedChannel` in the same transaction: from its commit the
     * token is refused by the verifying statement, and every instance drops
     * it from its trust cache. Moving its runs is the scheduler's part
     * (`Scheduler/Supervision`). Answers the revoked worker.
     */
    const revoke = Effect.fn("Workers.revoke")(function*(workspaceId: string, workerId: string) {
      const found = yield* administered(workspaceId, workerId)
      const actor = yield* CurrentActor
      const worker = yield* sql.withTransaction(Effect.gen(function*() {
        const revoked = yield* repo.revoke(workerId)
        if (Option.isNone(revoked)) return yield* Effect.fail(new WorkerNotFound({ workerId }))
        yield* audit.record({
          environmentId: revoked.value.environmentId,
          actor,
          action: "worker.revoked",
          targetType: "worker",
          targetId: workerId,
          metadata: { label: found.label }
        })
        yield* sql`SELECT pg_notify(${workerRevokedChannel}, ${revoked.value.id}::text)`
        return revoked.value
      })).pipe(Effect.catchTag("SqlError", Effect.die))
      yield* Effect.logInfo("worker revoked").pipe(Effect.annotateLogs({ workerId, environmentId: worker.environmentId }))
      return worker
    })

    return { register, listEnvironment, listWorkspace, update, revoke } as const
  }),
  dependencies: [WorkersRepo.Default, Policy.Default, AuditLog.Default]
}) {}
