import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { AuditLog } from "../Audit/AuditLog.js"
import { CurrentActor } from "../Contract/Security.js"
import { uuidv7 } from "../Crypto/Ids.js"
import { decodeCursor, defaultLimit, page } from "../Db/Pagination.js"
import { Policy } from "../Tenancy/Policy.js"
import { PoolInUse, PoolNameTaken, PoolNotFound } from "./PoolErrors.js"
import { PoolsRepo } from "./PoolsRepo.js"

/**
 * Shared concurrency pools of an environment: viewer+ reads, admin+ writes,
 * each write and its audit record in one transaction.
 */
export class ConcurrencyPools extends Effect.Service<ConcurrencyPools>()("ConcurrencyPools/ConcurrencyPools", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* PoolsRepo
    const policy = yield* Policy
    const audit = yield* AuditLog

    const list = Effect.fn("ConcurrencyPools.list")(function*(
      environmentId: string,
      params: { readonly cursor?: string | undefined; readonly limit?: number | undefined }
    ) {
      yield* policy.requireRole(environmentId, "viewer")
      const after = yield* decodeCursor(params.cursor)
      const limit = params.limit ?? defaultLimit
      return page(yield* repo.list(environmentId, after, limit), limit)
    })

    const get = Effect.fn("ConcurrencyPools.get")(function*(environmentId: string, id: string) {
      yield* policy.requireRole(environmentId, "viewer")
      const pool = yield* repo.find(environmentId, id)
      if (pool === undefined) return yield* Effect.fail(new PoolNotFound({ poolId: id }))
      return pool
    })

    const create = Effect.fn("ConcurrencyPools.create")(function*(environmentId: string, input: { readonly name: string; readonly limit: number }) {
      yield* policy.requireRole(environmentId, "admin")
      const actor = yield* CurrentActor
      return yield* sql.withTransaction(Effect.gen(function*() {
        const pool = yield* repo.insert(uuidv7(), environmentId, input.name, input.limit)
        if (pool === undefined) return yield* Effect.fail(new PoolNameTaken({ name: input.name }))
        yield* audit.record({
          environmentId,
          actor,
          action: "concurrency_pool.created",
          targetType: "concurrency_pool",
          targetId: pool.id,
          metadata: { name: pool.name, limit: pool.limit }
        })
        return pool
      })).pipe(Effect.catchTag("SqlError", Effect.die))
    })

    const update = Effect.fn("ConcurrencyPools.update")(function*(
      environmentId: string,
      id: string,
      changes: { readonly name?: string | undefined; readonly limit?: number | undefined }
    ) {
      yield* policy.requireRole(environmentId, "admin")
      const actor = yield* CurrentActor
      return yield* sql.withTransaction(Effect.gen(function*() {
        const before = yield* repo.find(environmentId, id)
        if (before === undefined) return yield* Effect.fail(new PoolNotFound({ poolId: id }))
        const result = yield* repo.update(environmentId, id, changes)
        if (result === "missing") return yield* Effect.fail(new PoolNotFound({ poolId: id }))
        if (result === "taken") return yield* Effect.fail(new PoolNameTaken({ name: changes.name ?? "" }))
        const changed = [
          ...(result.name !== before.name ? ["name"] : []),
          ...(result.limit !== before.limit ? ["limit"] : [])
        ]
        if (changed.length > 0) {
          yield* audit.record({
            environmentId,
            actor,
            action: "concurrency_pool.updated",
            targetType: "concurrency_pool",
            targetId: id,
            metadata: { changed, name: result.name, limit: result.limit }
          })
        }
        return result
      })).pipe(Effect.catchTag("SqlError", Effect.die))
    })

    const remove = Effect.fn("ConcurrencyPools.remove")(function*(environmentId: string, id: string) {
      yield* policy.requireRole(environmentId, "admin")
      const actor = yield* CurrentActor
      yield* sql.withTransaction(Effect.gen(function*() {
        const before = yield* repo.find(environmentId, id)
        const result = yield* repo.remove(environmentId, id)
        if (result === "missing" || before === undefined) return yield* Effect.fail(new PoolNotFound({ poolId: id }))
        if (result !== "deleted") return yield* Effect.fail(new PoolInUse({ poolId: id, triggers: result.inUseBy }))
        yield* audit.record({
          environmentId,
          actor,
          action: "concurrency_pool.deleted",
          targetType: "concurrency_pool",
          targetId: id,
          metadata: { name: before.name }
        })
      })).pipe(Effect.catchTag("SqlError", Effect.die))
    })

    return { list, get, create, update, remove } as const
  }),
  dependencies: [PoolsRepo.Default, Policy.Default, AuditLog.Default]
}) {}
