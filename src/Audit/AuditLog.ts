import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Actor } from "../Contract/Security.js"
import { uuidv7 } from "../Crypto/Ids.js"
import { type AuditAction, AuditRecord } from "../Contract/AuditApi.js"

export type { AuditAction } from "../Contract/AuditApi.js"

export type AuditActor =
  | Actor
  | { readonly _tag: "Worker"; readonly workerId: string }
  | { readonly _tag: "System" }

export interface AuditEntry {
  readonly environmentId: string
  readonly actor: AuditActor
  readonly action: AuditAction
  readonly targetType: string
  readonly targetId: string | null
  /** Never a secret or token: callers pass only names, roles and flags. */
  readonly metadata?: Record<string, unknown>
}

/** How an actor is stored (`actor_type`, `actor_id`); exported for statements that write their audit row in a CTE. */
export const actorColumns = (actor: AuditActor): { type: string; id: string | null } => {
  switch (actor._tag) {
    case "User":
      return { type: "user", id: actor.userId }
    case "ApiKey":
      return { type: "api_key", id: actor.keyId }
    case "Mcp":
      return { type: "mcp", id: actor.triggerId }
    case "Worker":
      return { type: "worker", id: actor.workerId }
    case "System":
      return { type: "system", id: null }
  }
}

/** An `audit_log` row, decoded into the API's `AuditRecord`. */
const AuditRow = Schema.Struct({
  id: Schema.String,
  environment_id: Schema.String,
  actor_type: AuditRecord.fields.actorType,
  actor_id: Schema.NullOr(Schema.String),
  action: AuditRecord.fields.action,
  target_type: Schema.String,
  target_id: Schema.NullOr(Schema.String),
  metadata: AuditRecord.fields.metadata,
  created_at: Schema.DateFromSelf
}).pipe(Schema.rename({
  environment_id: "environmentId",
  actor_type: "actorType",
  actor_id: "actorId",
  target_type: "targetType",
  target_id: "targetId",
  created_at: "createdAt"
}))

export interface ListOptions {
  readonly after: string | undefined
  /** The action names to match; undefined for any action, empty for none. */
  readonly actions: ReadonlyArray<string> | undefined
  readonly targetId: string | undefined
  readonly limit: number
}

/**
 * Appends audit records and reads them back. Uses the ambient `SqlClient`, so
 * a record written inside `sql.withTransaction` commits or rolls back with the
 * mutation.
 */
export class AuditLog extends Effect.Service<AuditLog>()("Audit/AuditLog", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const insert = SqlSchema.void({
      Request: Schema.Struct({
        environmentId: Schema.String,
        actorType: Schema.String,
        actorId: Schema.NullOr(Schema.String),
        action: Schema.String,
        targetType: Schema.String,
        targetId: Schema.NullOr(Schema.String),
        /** As JSON text, cast to jsonb by the statement. */
        metadata: Schema.String
      }),
      execute: (r) =>
        sql`INSERT INTO audit_log (id, environment_id, actor_type, actor_id, action, target_type, target_id, metadata)
            VALUES (${uuidv7()}, ${r.environmentId}, ${r.actorType}, ${r.actorId}, ${r.action},
                    ${r.targetType}, ${r.targetId}, ${r.metadata}::jsonb)`
    })

    const record = (entry: AuditEntry): Effect.Effect<void> => {
      const actor = actorColumns(entry.actor)
      return insert({
        environmentId: entry.environmentId,
        actorType: actor.type,
        actorId: actor.id,
        action: entry.action,
        targetType: entry.targetType,
        targetId: entry.targetId,
        metadata: JSON.stringify(entry.metadata ?? {})
      }).pipe(Effect.orDie, Effect.withSpan("AuditLog.record"))
    }

    const listed = SqlSchema.findAll({
      Request: Schema.Struct({
        environmentId: Schema.String,
        after: Schema.UndefinedOr(Schema.String),
        actions: Schema.UndefinedOr(Schema.Array(Schema.String)),
        targetId: Schema.UndefinedOr(Schema.String),
        limit: Schema.Number
      }),
      Result: AuditRow,
      execute: ({ actions, after, environmentId, limit, targetId }) =>
        sql`SELECT id, environment_id, actor_type, actor_id, action, target_type, target_id, metadata, created_at
            FROM audit_log WHERE ${
          sql.and([
            sql`environment_id = ${environmentId}`,
            ...(after === undefined ? [] : [sql`id < ${after}`]),
            ...(actions === undefined ? [] : actions.length === 0 ? [sql`false`] : [sql.in("action", actions)]),
            ...(targetId === undefined ? [] : [sql`target_id = ${targetId}`])
          ])
        }
            ORDER BY id DESC LIMIT ${limit + 1}`
    })

    /** Newest first; `limit + 1` records so the caller can tell whether there is a next page. */
    const list = (environmentId: string, options: ListOptions): Effect.Effect<ReadonlyArray<AuditRecord>> =>
      listed({ environmentId, ...options }).pipe(Effect.orDie, Effect.withSpan("AuditLog.list"))

    return { record, list } as const
  })
}) {}
