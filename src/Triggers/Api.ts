import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import * as Schema from "effect/Schema"
import { Authentication } from "../Auth/Security.js"
import { Conflict, Forbidden, NotFound } from "../Domain/Errors.js"
import { pathId } from "../Domain/Ids.js"
import { InputValue, inputJsonSchema, Limit, Page, Payload } from "../Domain/Schemas.js"
import { Schedule, ScheduleInput } from "./Schedule.js"

/** A trigger as every read returns it: never the webhook secret or the MCP token. */
export class Trigger extends Schema.Class<Trigger>("Trigger")({
  id: Schema.UUID,
  environmentId: Schema.UUID,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  workerId: Schema.NullOr(Schema.UUID),
  input: InputValue,
  timeoutSeconds: Schema.Int,
  heartbeatTimeoutSeconds: Schema.Int,
  maxRetries: Schema.Int,
  webhookUrl: Schema.NullOr(Schema.String),
  hasWebhookSecret: Schema.Boolean,
  /** Null when the trigger runs only on request. */
  schedule: Schema.NullOr(Schedule),
  /** The schedule's next tick; null without a schedule. */
  nextRunAt: Schema.NullOr(Schema.Date),
  createdAt: Schema.Date,
  updatedAt: Schema.Date
}) {}

const intBetween = (min: number, max: number, defaultValue?: number) =>
  Schema.Number.pipe(
    Schema.int({ message: () => `must be an integer from ${min} to ${max}` }),
    Schema.between(min, max, { message: () => `must be an integer from ${min} to ${max}` })
  ).annotations({
    // Shown in the OpenAPI document; the default applies on create when the field is absent.
    jsonSchema: { type: "integer", minimum: min, maximum: max, ...(defaultValue === undefined ? {} : { default: defaultValue }) }
  })

const unsafeText = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/**
 * Text Postgres can store as given: no NUL character (text and jsonb refuse
 * it) and no unpaired surrogate (it would be silently replaced in text and is
 * refused in jsonb).
 */
export const StorableText = Schema.String.pipe(
  Schema.filter((s) => !unsafeText.test(s), { message: () => "must not contain NUL or unpaired surrogate characters" })
)

const storable = (value: unknown, depth = 0): boolean => {
  if (depth > 64) return false
  if (typeof value === "string") return !unsafeText.test(value)
  if (typeof value === "number") return Number.isFinite(value)
  if (value === null || typeof value === "boolean") return true
  if (Array.isArray(value)) return value.every((v) => storable(v, depth + 1))
  if (typeof value === "object") {
    return Object.entries(value).every(([k, v]) => !unsafeText.test(k) && storable(v, depth + 1))
  }
  return false
}

/** Any JSON value that jsonb stores unchanged, nested at most 64 levels. */
export const JsonInput = Schema.Unknown.pipe(
  Schema.filter((v) => storable(v), {
    message: () => "must be JSON nested at most 64 levels, without NUL or unpaired surrogate characters"
  })
).annotations({ jsonSchema: inputJsonSchema })

const Name = Schema.Trim.pipe(
  Schema.compose(StorableText.pipe(
    Schema.minLength(1, { message: () => "must be 1 to 200 characters" }),
    Schema.maxLength(200, { message: () => "must be 1 to 200 characters" })
  ))
)

const Description = StorableText.pipe(Schema.maxLength(10_000, { message: () => "must be at most 10000 characters" }))

const isHttpUrl = (value: string): boolean => {
  try {
    const url = new URL(value)
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname.length > 0
  } catch {
    return false
  }
}

export const WebhookUrl = StorableText.pipe(
  Schema.maxLength(2048, { message: () => "must be at most 2048 characters" }),
  Schema.filter(isHttpUrl, { message: () => "must be an absolute http(s) URL" })
)

/** Write-only. Empty means "no change" (PATCH) or "none" (create). */
export const WebhookSecret = StorableText.pipe(
  Schema.filter((s) => s.length === 0 || s.length >= 16, { message: () => "must be at least 16 characters" }),
  Schema.maxLength(1024, { message: () => "must be at most 1024 characters" })
)

const WorkerId = Schema.UUID.annotations({ message: () => "must be a worker id (UUID)" })

export const CreateTrigger = Payload({
  name: Name,
  description: Schema.optional(Schema.NullOr(Description)),
  workerId: Schema.optional(Schema.NullOr(WorkerId)),
  input: Schema.optional(JsonInput),
  timeoutSeconds: Schema.optional(intBetween(1, 86400, 3600)),
  heartbeatTimeoutSeconds: Schema.optional(intBetween(5, 3600, 30)),
  maxRetries: Schema.optional(intBetween(0, 10, 0)),
  webhookUrl: Schema.optional(Schema.NullOr(WebhookUrl)),
  webhookSecret: Schema.optional(Schema.NullOr(WebhookSecret)),
  schedule: Schema.optional(Schema.NullOr(ScheduleInput))
})

/** Any subset; `null` clears the nullable fields (`webhookUrl: null` removes the webhook). */
export const PatchTrigger = Payload({
  name: Schema.optional(Name),
  description: Schema.optional(Schema.NullOr(Description)),
  workerId: Schema.optional(Schema.NullOr(WorkerId)),
  input: Schema.optional(JsonInput),
  timeoutSeconds: Schema.optional(intBetween(1, 86400)),
  heartbeatTimeoutSeconds: Schema.optional(intBetween(5, 3600)),
  maxRetries: Schema.optional(intBetween(0, 10)),
  webhookUrl: Schema.optional(Schema.NullOr(WebhookUrl)),
  webhookSecret: Schema.optional(Schema.NullOr(WebhookSecret)),
  schedule: Schema.optional(Schema.NullOr(ScheduleInput))
})

const EnvironmentPath = Schema.Struct({ envId: pathId("environment") })
const TriggerPath = Schema.Struct({ id: pathId("trigger") })

export const ListTriggersParams = Schema.Struct({
  cursor: Schema.optional(Schema.String),
  limit: Schema.optional(Limit),
  workerId: Schema.optional(WorkerId)
})

export class TriggersApi extends HttpApiGroup.make("triggers")
  .add(
    HttpApiEndpoint.get("list", "/environments/:envId/triggers")
      .annotate(OpenApi.Summary, "List triggers")
      .annotate(OpenApi.Description, "Triggers of the environment (viewer or higher), newest first; `workerId` keeps those pinned to a worker.")
      .setPath(EnvironmentPath)
      .setUrlParams(ListTriggersParams)
      .addSuccess(Page(Trigger))
      .addError(NotFound.wire)
      .addError(Forbidden.wire)
  )
  .add(
    HttpApiEndpoint.post("create", "/environments/:envId/triggers")
      .annotate(OpenApi.Summary, "Create a trigger")
      .annotate(OpenApi.Description, "admin or higher. Fields absent take the defaults shown. `webhookSecret` (16+ characters) is stored encrypted and never returned; `webhookUrl` must be a public http(s) address unless the service allows private networks. `schedule` (`{cron, timezone, catchUp}`) starts a run of the trigger at each tick of the cron expression in the IANA zone (default UTC); reads answer its `nextRunAt`.")
      .setPath(EnvironmentPath)
      .setPayload(CreateTrigger)
      .addSuccess(Trigger, { status: 201 })
      .addError(NotFound.wire)
      .addError(Forbidden.wire)
  )
  .add(
    HttpApiEndpoint.get("get", "/triggers/:id")
      .annotate(OpenApi.Summary, "Read a trigger")
      .annotate(OpenApi.Description, "viewer or higher. `hasWebhookSecret` tells whether a secret is set; the secret itself is never returned.")
      .setPath(TriggerPath)
      .addSuccess(Trigger)
      .addError(NotFound.wire)
  )
  .add(
    HttpApiEndpoint.patch("update", "/triggers/:id")
      .annotate(OpenApi.Summary, "Update a trigger")
      .annotate(OpenApi.Description, "admin or higher; any subset of the fields. `null` clears a nullable field (`webhookUrl: null` removes the webhook, `schedule: null` stops the schedule); an empty or absent `webhookSecret` keeps the secret. A new `schedule` replaces the old one and fires from its next tick on. Changes apply to runs requested later.")
      .setPath(TriggerPath)
      .setPayload(PatchTrigger)
      .addSuccess(Trigger)
      .addError(NotFound.wire)
      .addError(Forbidden.wire)
  )
  .add(
    HttpApiEndpoint.del("delete", "/triggers/:id")
      .annotate(OpenApi.Summary, "Delete a trigger")
      .annotate(OpenApi.Description, "admin or higher. Soft delete: its runs stay readable. 409 while one of its runs is active.")
      .setPath(TriggerPath)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound.wire)
      .addError(Forbidden.wire)
      .addError(Conflict.wire)
  )
  .add(
    HttpApiEndpoint.post("rotateMcpToken", "/triggers/:id/rotate-mcp-token")
      .annotate(OpenApi.Summary, "Rotate the MCP token")
      .annotate(OpenApi.Description, "admin or higher. A new `mcp_` token for this trigger, in this answer only; the previous one stops working.")
      .setPath(TriggerPath)
      .addSuccess(Schema.Struct({ mcpToken: Schema.String }))
      .addError(NotFound.wire)
      .addError(Forbidden.wire)
  )
  .middleware(Authentication)
{}
