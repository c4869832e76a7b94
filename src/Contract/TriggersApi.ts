import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { Authentication } from "./Security.js"
import { Conflict, Forbidden, NotFound } from "./Domain/ApiErrors.js"
import { pathId } from "./Domain/Uuids.js"
import { InputValue, inputJsonSchema, IntBetween, Limit, NumberBetween, Page, Payload } from "./Domain/Schemas.js"
import { Tags } from "./Domain/Tags.js"
import { ConcurrencyLimit, PoolName } from "./ConcurrencyPoolsApi.js"
import { Schedule, ScheduleInput } from "./Schedule.js"

/** The OpenAPI description of a trigger's `inputSchema`. */
const inputSchemaJsonSchema = {
  description: "A JSON Schema (draft 2020-12, as Ajv supports it; formats such as date-time, email and uri are checked; " +
    "`$ref` only within the schema) that every run's input must match: a run request whose input does not is refused " +
    "with 400 naming the path that failed, and nothing is stored. Null: any JSON input."
}

/**
 * A trigger's flow control as reads answer it (null: no limits, no key).
 * `inUse`: its runs holding a place now (assigned, claimed or running).
 */
export const TriggerConcurrency = Schema.Struct({
  limit: Schema.NullOr(Schema.Int),
  perKey: Schema.NullOr(Schema.Int),
  keyFrom: Schema.NullOr(Schema.String),
  pool: Schema.NullOr(Schema.String),
  inUse: Schema.Int
}).annotations({ identifier: "TriggerConcurrency" })
export type TriggerConcurrency = typeof TriggerConcurrency.Type

/** A top-level field of a run's input that holds its concurrency key. */
const KeyFrom = Schema.String.pipe(
  Schema.minLength(1, { message: () => "must be 1 to 100 characters" }),
  Schema.maxLength(100, { message: () => "must be 1 to 100 characters" })
)

/**
 * A trigger's flow control on create and PATCH (a PATCH replaces it whole;
 * null removes it): `limit` runs of the trigger, `perKey` runs of one
 * concurrency key, and the pool's limit, hold a place at once.
 */
export const ConcurrencyInput = Schema.Struct({
  limit: Schema.optional(Schema.NullOr(ConcurrencyLimit)),
  perKey: Schema.optional(Schema.NullOr(ConcurrencyLimit)),
  keyFrom: Schema.optional(Schema.NullOr(KeyFrom)),
  pool: Schema.optional(Schema.NullOr(PoolName))
}).annotations({
  description: "Concurrency limits: at most `limit` runs of this trigger and at most `perKey` runs of one concurrency key " +
    "(the run request's `concurrencyKey`, else the input field named by `keyFrom`; runs without a key share one) " +
    "are assigned, claimed or running at once, and the trigger's runs count toward the named `pool` of the " +
    "environment. 1 to 10000 each. Changes apply to runs not yet placed."
})
export type ConcurrencyInput = typeof ConcurrencyInput.Type

const intBetween = IntBetween

/** The longest a run may wait: a delay, a `runAt`, a time-to-live (30 days). */
export const maxWaitSeconds = 30 * 86_400

/**
 * How long a retry waits before it may be placed: the n-th retry after
 * `min(maxDelaySeconds, initialDelaySeconds × factor^(n-1))`, spread by ±`jitter`
 * (a fraction of it). `initialDelaySeconds: 0` retries at once.
 */
export const RetryPolicy = Schema.Struct({
  initialDelaySeconds: IntBetween(0, 3600, 0),
  factor: NumberBetween(1, 10, 2),
  maxDelaySeconds: IntBetween(0, 86_400, 3600),
  jitter: NumberBetween(0, 1, 0)
}).annotations({ identifier: "RetryPolicy" })
export type RetryPolicy = typeof RetryPolicy.Type

export const defaultRetryPolicy: RetryPolicy = { initialDelaySeconds: 0, factor: 2, maxDelaySeconds: 3600, jitter: 0 }

/** A retry policy as written: any subset, the rest from `defaultRetryPolicy`. */
export const RetryPolicyInput = Schema.Struct({
  initialDelaySeconds: Schema.optional(RetryPolicy.fields.initialDelaySeconds),
  factor: Schema.optional(RetryPolicy.fields.factor),
  maxDelaySeconds: Schema.optional(RetryPolicy.fields.maxDelaySeconds),
  jitter: Schema.optional(RetryPolicy.fields.jitter)
}).annotations({ parseOptions: { errors: "all" } })

/** A trigger as every read returns it: never the webhook secret or the MCP token. */
export class Trigger extends Schema.Class<Trigger>("Trigger")({
  id: Schema.UUID,
  environmentId: Schema.UUID,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  workerId: Schema.NullOr(Schema.UUID),
  /** What the worker executes for each run (the pipeline-worker agent: with `/bin/sh -c`); null when none is set. */
  command: Schema.NullOr(Schema.String),
  input: InputValue,
  /** The JSON Schema a run's input must match (checked on every run request); null: any JSON. */
  inputSchema: Schema.NullOr(Schema.Unknown).annotations({ jsonSchema: inputSchemaJsonSchema }),
  /** Tags every run of the trigger carries, before its request's own. */
  defaultTags: Schema.Array(Schema.String),
  timeoutSeconds: Schema.Int,
  heartbeatTimeoutSeconds: Schema.Int,
  maxRetries: Schema.Int,
  /** The retries' backoff (defaults when never set). */
  retry: RetryPolicy,
  /** A run not claimed this many seconds after it became available ends `expired`; null: runs wait as long as it takes. */
  ttlSeconds: Schema.NullOr(Schema.Int),
  webhookUrl: Schema.NullOr(Schema.String),
  hasWebhookSecret: Schema.Boolean,
  /** Null when the trigger runs only on request. */
  schedule: Schema.NullOr(Schedule),
  /** The schedule's next tick; null without a schedule. */
  nextRunAt: Schema.NullOr(Schema.Date),
  /** Concurrency limits, concurrency key and pool; null when the trigger has none. */
  concurrency: Schema.NullOr(TriggerConcurrency),
  createdAt: Schema.Date,
  updatedAt: Schema.Date
}) {}


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

/** A shell line for the worker; only those who may edit the trigger choose it, never a run's input. */
const Command = StorableText.pipe(
  Schema.filter((s) => s.trim().length > 0, { message: () => "must not be empty (null: no command)" }),
  Schema.maxLength(10_000, { message: () => "must be at most 10000 characters" })
).annotations({
  description: "The shell line the worker executes for each run of this trigger (the pipeline-worker agent runs it " +
    "with /bin/sh -c, the run's input as JSON on stdin and in PIPELINE_INPUT). A run's input never changes it. Null: none."
})

const DefaultTags = Tags.annotations({
  description: "Tags every run of the trigger carries (up to 10, each 1 to 64 characters of `[A-Za-z0-9_.:-]`), before its request's own."
})

const WorkerId = Schema.UUID.annotations({ message: () => "must be a worker id (UUID)" })

export const CreateTrigger = Payload({
  name: Name,
  description: Schema.optional(Schema.NullOr(Description)),
  workerId: Schema.optional(Schema.NullOr(WorkerId)),
  command: Schema.optional(Schema.NullOr(Command)),
  input: Schema.optional(JsonInput),
  inputSchema: Schema.optional(Schema.NullOr(JsonInput.annotations({ jsonSchema: inputSchemaJsonSchema }))),
  defaultTags: Schema.optional(DefaultTags),
  timeoutSeconds: Schema.optional(intBetween(1, 86400, 3600)),
  heartbeatTimeoutSeconds: Schema.optional(intBetween(5, 3600, 30)),
  maxRetries: Schema.optional(intBetween(0, 10, 0)),
  retry: Schema.optional(RetryPolicyInput),
  ttlSeconds: Schema.optional(Schema.NullOr(intBetween(1, maxWaitSeconds))),
  webhookUrl: Schema.optional(Schema.NullOr(WebhookUrl)),
  webhookSecret: Schema.optional(Schema.NullOr(WebhookSecret)),
  schedule: Schema.optional(Schema.NullOr(ScheduleInput)),
  concurrency: Schema.optional(Schema.NullOr(ConcurrencyInput))
})

/** Any subset; `null` clears the nullable fields (`webhookUrl: null` removes the webhook). */
export const PatchTrigger = Payload({
  name: Schema.optional(Name),
  description: Schema.optional(Schema.NullOr(Description)),
  workerId: Schema.optional(Schema.NullOr(WorkerId)),
  command: Schema.optional(Schema.NullOr(Command)),
  input: Schema.optional(JsonInput),
  inputSchema: Schema.optional(Schema.NullOr(JsonInput.annotations({ jsonSchema: inputSchemaJsonSchema }))),
  defaultTags: Schema.optional(DefaultTags),
  timeoutSeconds: Schema.optional(intBetween(1, 86400)),
  heartbeatTimeoutSeconds: Schema.optional(intBetween(5, 3600)),
  maxRetries: Schema.optional(intBetween(0, 10)),
  /** Fields given replace the current policy's; fields absent keep theirs. */
  retry: Schema.optional(RetryPolicyInput),
  ttlSeconds: Schema.optional(Schema.NullOr(intBetween(1, maxWaitSeconds))),
  webhookUrl: Schema.optional(Schema.NullOr(WebhookUrl)),
  webhookSecret: Schema.optional(Schema.NullOr(WebhookSecret)),
  schedule: Schema.optional(Schema.NullOr(ScheduleInput)),
  concurrency: Schema.optional(Schema.NullOr(ConcurrencyInput))
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
