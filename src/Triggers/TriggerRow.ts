import * as Schema from "effect/Schema"
import { rowsAreValid } from "../Db/Rows.js"
import { defaultRetryPolicy, RetryPolicy, Trigger } from "../Contract/TriggersApi.js"
import { CatchUp, defaultCatchUp, defaultTimeZone } from "../Contract/Schedule.js"

/**
 * The columns a create writes and a PATCH reads and writes back, as the
 * database answers them (timestamptz as `Date`, jsonb parsed, int as number).
 */
export const TriggerChanges = Schema.Struct({
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  worker_id: Schema.NullOr(Schema.String),
  command: Schema.NullOr(Schema.String),
  /** Any JSON; SQL NULL when the trigger has no default input. */
  input: Schema.Unknown,
  /** A JSON Schema; SQL NULL when the trigger declares none. */
  input_schema: Schema.Unknown,
  default_tags: Schema.Array(Schema.String),
  timeout_seconds: Schema.Number,
  heartbeat_timeout_seconds: Schema.Number,
  max_retries: Schema.Number,
  /** The backoff as set (jsonb); null: `defaultRetryPolicy`. */
  retry_policy: Schema.NullOr(RetryPolicy),
  ttl_seconds: Schema.NullOr(Schema.Number),
  webhook_url: Schema.NullOr(Schema.String),
  /** AES-256-GCM ciphertext (SecretBox); never leaves the server. */
  webhook_secret_enc: Schema.NullOr(Schema.String),
  schedule_cron: Schema.NullOr(Schema.String),
  schedule_timezone: Schema.NullOr(Schema.String),
  schedule_catch_up: Schema.NullOr(CatchUp),
  /** The next tick of the schedule; null without one. */
  next_run_at: Schema.NullOr(Schema.DateFromSelf),
  concurrency_limit: Schema.NullOr(Schema.Number),
  concurrency_per_key: Schema.NullOr(Schema.Number),
  concurrency_key_from: Schema.NullOr(Schema.String),
  concurrency_pool_id: Schema.NullOr(Schema.String)
})
export type TriggerChanges = typeof TriggerChanges.Type

const { webhook_secret_enc: _, ...publicColumns } = TriggerChanges.fields

const TriggerColumns = Schema.Struct({
  id: Schema.String,
  environment_id: Schema.String,
  ...publicColumns,
  has_webhook_secret: Schema.Boolean,
  /** The pool's name (the API names pools, not their ids). */
  concurrency_pool: Schema.NullOr(Schema.String),
  concurrency_in_use: Schema.Number,
  created_at: Schema.DateFromSelf,
  updated_at: Schema.DateFromSelf
})

/** Any flow-control setting: a limit, a key field or a pool. */
const hasConcurrency = (row: {
  readonly concurrency_limit: number | null
  readonly concurrency_per_key: number | null
  readonly concurrency_key_from: string | null
  readonly concurrency_pool_id: string | null
}): boolean =>
  row.concurrency_limit !== null || row.concurrency_per_key !== null || row.concurrency_key_from !== null ||
  row.concurrency_pool_id !== null

/** The trigger's runs are placed under limits (a limit, a per-key limit or a pool): see `RunStore/LimitedPlacement`. */
export const isLimited = (row: Pick<TriggerChanges, "concurrency_limit" | "concurrency_per_key" | "concurrency_pool_id">): boolean =>
  row.concurrency_limit !== null || row.concurrency_per_key !== null || row.concurrency_pool_id !== null

/** A `triggers` row as every read selects it (the secret reduced to whether there is one), decoded into the API's `Trigger`. */
export const TriggerRow = TriggerColumns.pipe(
  Schema.transform(Schema.instanceOf(Trigger), {
    strict: true,
    decode: (row) =>
      new Trigger({
        id: row.id,
        environmentId: row.environment_id,
        name: row.name,
        description: row.description,
        workerId: row.worker_id,
        command: row.command,
        input: row.input ?? null,
        inputSchema: row.input_schema ?? null,
        defaultTags: row.default_tags,
        timeoutSeconds: row.timeout_seconds,
        heartbeatTimeoutSeconds: row.heartbeat_timeout_seconds,
        maxRetries: row.max_retries,
        retry: row.retry_policy ?? defaultRetryPolicy,
        ttlSeconds: row.ttl_seconds,
        webhookUrl: row.webhook_url,
        hasWebhookSecret: row.has_webhook_secret,
        schedule: row.schedule_cron === null ? null : {
          cron: row.schedule_cron,
          timezone: row.schedule_timezone ?? defaultTimeZone,
          catchUp: row.schedule_catch_up ?? defaultCatchUp
        },
        nextRunAt: row.next_run_at,
        concurrency: hasConcurrency(row) ? {
          limit: row.concurrency_limit,
          perKey: row.concurrency_per_key,
          keyFrom: row.concurrency_key_from,
          pool: row.concurrency_pool,
          inUse: row.concurrency_in_use
        } : null,
        createdAt: row.created_at,
        updatedAt: row.updated_at
      }, rowsAreValid),
    encode: (t) => ({
      id: t.id,
      environment_id: t.environmentId,
      name: t.name,
      description: t.description,
      worker_id: t.workerId,
      command: t.command,
      input: t.input,
      input_schema: t.inputSchema,
      default_tags: t.defaultTags,
      timeout_seconds: t.timeoutSeconds,
      heartbeat_timeout_seconds: t.heartbeatTimeoutSeconds,
      max_retries: t.maxRetries,
      retry_policy: t.retry,
      ttl_seconds: t.ttlSeconds,
      webhook_url: t.webhookUrl,
      has_webhook_secret: t.hasWebhookSecret,
      schedule_cron: t.schedule?.cron ?? null,
      schedule_timezone: t.schedule?.timezone ?? null,
      schedule_catch_up: t.schedule?.catchUp ?? null,
      next_run_at: t.nextRunAt,
      concurrency_limit: t.concurrency?.limit ?? null,
      concurrency_per_key: t.concurrency?.perKey ?? null,
      concurrency_key_from: t.concurrency?.keyFrom ?? null,
      // Reads never carry the id; a trigger re-encoded keeps its pool by name only.
      concurrency_pool_id: null,
      concurrency_pool: t.concurrency?.pool ?? null,
      concurrency_in_use: t.concurrency?.inUse ?? 0,
      created_at: t.createdAt,
      updated_at: t.updatedAt
    })
  })
)

/**
 * A row locked for a PATCH (the same columns and the ciphertext): the trigger
 * as the API shows it, and the stored columns the change starts from.
 */
export const LockedTriggerRow = Schema.Struct({ ...TriggerColumns.fields, webhook_secret_enc: Schema.NullOr(Schema.String) }).pipe(
  Schema.transform(Schema.Struct({ trigger: TriggerRow, stored: TriggerChanges }), {
    strict: true,
    decode: ({ webhook_secret_enc, ...row }) => ({ trigger: row, stored: { ...row, webhook_secret_enc } }),
    encode: ({ stored, trigger }) => ({ ...trigger, webhook_secret_enc: stored.webhook_secret_enc })
  })
)
