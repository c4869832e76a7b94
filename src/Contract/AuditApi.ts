import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { Authentication } from "./Security.js"
import { Forbidden, NotFound } from "./Domain/ApiErrors.js"
import { pathId } from "./Domain/Uuids.js"
import { Limit, Page, Timestamp } from "./Domain/Schemas.js"

/**
 * Every action the audit log records. The one list: the server's records are
 * typed by it, the OpenAPI document lists it as the `action` enum, and the
 * dashboard's action filter is generated from it (src/Web/ContractModule.ts).
 */
export const auditActions = [
  "environment.updated",
  "member.added",
  "member.role_changed",
  "member.removed",
  "api_key.created",
  "api_key.deleted",
  "trigger.created",
  "trigger.updated",
  "trigger.deleted",
  "trigger.mcp_token_rotated",
  "run.requested",
  "run.cancelled",
  "run.rescheduled",
  "worker.registered",
  "worker.label_changed",
  "worker.drain_changed",
  "worker.revoked",
  "webhook.redelivered",
  "bulk_action.completed",
  "bulk_action.cancelled",
  "concurrency_pool.created",
  "concurrency_pool.updated",
  "concurrency_pool.deleted"
] as const

export const AuditAction = Schema.Literal(...auditActions).annotations({ identifier: "AuditAction" })
export type AuditAction = typeof AuditAction.Type

export const AuditRecord = Schema.Struct({
  id: Schema.UUID,
  environmentId: Schema.UUID,
  actorType: Schema.Literal("user", "api_key", "worker", "system", "mcp"),
  actorId: Schema.NullOr(Schema.UUID),
  action: AuditAction,
  targetType: Schema.String,
  targetId: Schema.NullOr(Schema.UUID),
  metadata: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  createdAt: Timestamp
}).annotations({ identifier: "AuditRecord" })
export type AuditRecord = typeof AuditRecord.Type

// Postgres text cannot hold NUL: refuse it as a 400 rather than fail in SQL.
const noNul = Schema.pattern(/^[^\u0000]*$/, { message: () => "must not contain NUL characters" })
const ActionName = Schema.String.pipe(Schema.maxLength(100), noNul)

export const AuditQuery = Schema.Struct({
  /** One action name (see `AuditAction`); an unknown one matches nothing. */
  action: Schema.optional(ActionName),
  /** A comma-separated list of action names; combined with `action`, a record matching any of them is listed. */
  actions: Schema.optional(Schema.String.pipe(Schema.maxLength(2000), noNul)),
  targetId: Schema.optional(Schema.UUID),
  cursor: Schema.optional(Schema.String),
  limit: Schema.optional(Limit)
})

export class AuditApi extends HttpApiGroup.make("audit")
  .add(
    HttpApiEndpoint.get("list", "/environments/:envId/audit-log")
      .annotate(OpenApi.Summary, "Read the audit log")
      .annotate(OpenApi.Description, "admin or higher. Newest first; filter by `action` (or a comma-separated `actions`) and `targetId`.")
      .setPath(Schema.Struct({ envId: pathId("environment") }))
      .setUrlParams(AuditQuery)
      .addSuccess(Page(AuditRecord))
  )
  .addError(Forbidden.wire)
  .addError(NotFound.wire)
  .middleware(Authentication)
{}
