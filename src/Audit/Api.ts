import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import * as Schema from "effect/Schema"
import { Authentication } from "../Auth/Security.js"
import { Forbidden, NotFound } from "../Domain/Errors.js"
import { pathId } from "../Domain/Ids.js"
import { Limit, Page, Timestamp } from "../Domain/Schemas.js"

export const AuditRecord = Schema.Struct({
  id: Schema.UUID,
  environmentId: Schema.UUID,
  actorType: Schema.Literal("user", "api_key", "worker", "system", "mcp"),
  actorId: Schema.NullOr(Schema.UUID),
  action: Schema.String,
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
  /** One action name. */
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
