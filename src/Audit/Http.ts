import { HttpApiBuilder } from "@effect/platform"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { Api } from "../Api.js"
import { answerAccess } from "../Http/AccessErrors.js"
import { decodeCursor, defaultLimit, page } from "../Domain/Pagination.js"
import { Policy } from "../Tenancy/Policy.js"
import type { AuditRecord } from "./Api.js"

interface AuditRow {
  readonly id: string
  readonly environment_id: string
  readonly actor_type: AuditRecord["actorType"]
  readonly actor_id: string | null
  readonly action: string
  readonly target_type: string
  readonly target_id: string | null
  readonly metadata: Record<string, unknown>
  readonly created_at: Date
}

const toRecord = (row: AuditRow): AuditRecord => ({
  id: row.id,
  environmentId: row.environment_id,
  actorType: row.actor_type,
  actorId: row.actor_id,
  action: row.action,
  targetType: row.target_type,
  targetId: row.target_id,
  metadata: row.metadata,
  createdAt: row.created_at
})

/** `action` and `actions` together: the set of names to match, or undefined for no filter. */
const actionSet = (action: string | undefined, actions: string | undefined): ReadonlyArray<string> | undefined => {
  const names = [action, ...(actions ?? "").split(",")].map((a) => a?.trim() ?? "").filter((a) => a.length > 0)
  return action === undefined && actions === undefined ? undefined : names
}

export const AuditLive = HttpApiBuilder.group(Api, "audit", (handlers) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const policy = yield* Policy
    return handlers.handle("list", ({ path, urlParams }) =>
      Effect.gen(function*() {
        yield* answerAccess(policy.requireRole(path.envId, "admin"))
        const after = yield* decodeCursor(urlParams.cursor)
        const limit = urlParams.limit ?? defaultLimit
        const names = actionSet(urlParams.action, urlParams.actions)
        const filters = [
          sql`environment_id = ${path.envId}`,
          ...(after === undefined ? [] : [sql`id < ${after}`]),
          ...(names === undefined ? [] : names.length === 0 ? [sql`false`] : [sql.in("action", names)]),
          ...(urlParams.targetId === undefined ? [] : [sql`target_id = ${urlParams.targetId}`])
        ]
        const rows = yield* sql<AuditRow>`
          SELECT id, environment_id, actor_type, actor_id, action, target_type, target_id, metadata, created_at
          FROM audit_log WHERE ${sql.and(filters)}
          ORDER BY id DESC LIMIT ${limit + 1}`.pipe(Effect.orDie)
        const p = page(rows, limit)
        return { items: p.items.map(toRecord), nextCursor: p.nextCursor }
      }).pipe(Effect.withSpan("AuditLog.list")))
  }))
