import * as Schema from "effect/Schema"
import { rowsAreValid } from "../Domain/Rows.js"
import { Trigger } from "./Api.js"
import { CatchUp, defaultCatchUp, defaultTimeZone } from "./Schedule.js"

/**
 * The columns a create writes and a PATCH reads and writes back, as the
 * database answers them (timestamptz as `Date`, jsonb parsed, int as number).
 */
export const TriggerChanges = Schema.Struct({
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  worker_id: Schema.NullOr(Schema.String),
  /** Any JSON; SQL NULL when the trigger has no default input. */
  input: Schema.Unknown,
  timeout_seconds: Schema.Number,
  heartbeat_timeout_seconds: Schema.Number,
  max_retries: Schema.Number,
  webhook_url: Schema.NullOr(Schema.String),
  /** AES-256-GCM ciphertext (SecretBox); never leaves the server. */
  webhook_secret_enc: Schema.NullOr(Schema.String),
  schedule_cron: Schema.NullOr(Schema.String),
  schedule_timezone: Schema.NullOr(Schema.String),
  schedule_catch_up: Schema.NullOr(CatchUp),
  /** The next tick of the schedule; null without one. */
  next_run_at: Schema.NullOr(Schema.DateFromSelf)
})
export type TriggerChanges = typeof TriggerChanges.Type

const { webhook_secret_enc: _, ...publicColumns } = TriggerChanges.fields

const TriggerColumns = Schema.Struct({
  id: Schema.String,
  environment_id: Schema.String,
  ...publicColumns,
  has_webhook_secret: Schema.Boolean,
  created_at: Schema.DateFromSelf,
  updated_at: Schema.DateFromSelf
})

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
        input: row.input ?? null,
        timeoutSeconds: row.timeout_seconds,
        heartbeatTimeoutSeconds: row.heartbeat_timeout_seconds,
        maxRetries: row.max_retries,
        webhookUrl: row.webhook_url,
        hasWebhookSecret: row.has_webhook_secret,
        schedule: row.schedule_cron === null ? null : {
          cron: row.schedule_cron,
          timezone: row.schedule_timezone ?? defaultTimeZone,
          catchUp: row.schedule_catch_up ?? defaultCatchUp
        },
        nextRunAt: row.next_run_at,
        createdAt: row.created_at,
        updatedAt: row.updated_at
      }, rowsAreValid),
    encode: (t) => ({
      id: t.id,
      environment_id: t.environmentId,
      name: t.name,
      description: t.description,
      worker_id: t.workerId,
      input: t.input,
      timeout_seconds: t.timeoutSeconds,
      heartbeat_timeout_seconds: t.heartbeatTimeoutSeconds,
      max_retries: t.maxRetries,
      webhook_url: t.webhookUrl,
      has_webhook_secret: t.hasWebhookSecret,
      schedule_cron: t.schedule?.cron ?? null,
      schedule_timezone: t.schedule?.timezone ?? null,
      schedule_catch_up: t.schedule?.catchUp ?? null,
      next_run_at: t.nextRunAt,
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
