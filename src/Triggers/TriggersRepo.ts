import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { activeStatuses } from "../Contract/Domain/Run.js"
import type { Trigger } from "../Contract/TriggersApi.js"
import { LockedTriggerRow, TriggerChanges, TriggerRow } from "./TriggerRow.js"

/**
 * Data access for triggers, with no access check (that is the services'
 * business, `Triggers`). A soft-deleted trigger is invisible to every query
 * here, so it answers 404 exactly as a trigger that never existed.
 */
export class TriggersRepo extends Effect.Service<TriggersRepo>()("Triggers/Repo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const columns = sql`id, environment_id, name, description, worker_id, command, input, input_schema, default_tags, timeout_seconds,
      heartbeat_timeout_seconds, max_retries, retry_policy, ttl_seconds, webhook_url, (webhook_secret_enc IS NOT NULL) AS has_webhook_secret,
      schedule_cron, schedule_timezone, schedule_catch_up, next_run_at,
      concurrency_limit, concurrency_per_key, concurrency_key_from, concurrency_pool_id,
      (SELECT p.name FROM concurrency_pools p WHERE p.id = concurrency_pool_id) AS concurrency_pool,
      CASE WHEN concurrency_limit IS NULL AND concurrency_per_key IS NULL AND concurrency_pool_id IS NULL THEN 0
        ELSE (SELECT count(*)::int FROM runs r WHERE r.trigger_id = triggers.id
          AND r.worker_id IS NOT NULL AND r.ended_at IS NULL AND r.flow_limited) END AS concurrency_in_use,
      created_at, updated_at`

    const active = SqlSchema.findOne({
      Request: Schema.String,
      Result: TriggerRow,
      execute: (id) => sql`SELECT ${columns} FROM triggers WHERE id = ${id} AND deleted_at IS NULL`
    })

    /** The trigger when it exists and is not deleted. */
    const findActive = (id: string): Effect.Effect<Option.Option<Trigger>> =>
      active(id).pipe(Effect.orDie, Effect.withSpan("TriggersRepo.findActive"))

    const inserted = SqlSchema.single({
      Request: Schema.Struct({ id: Schema.String, environmentId: Schema.String, changes: TriggerChanges }),
      Result: TriggerRow,
      execute: ({ changes: t, environmentId, id }) =>
        sql`INSERT INTO triggers (id, environment_id, name, description, worker_id, command, input, input_schema, default_tags, timeout_seconds,
                                  heartbeat_timeout_seconds, max_retries, retry_policy, ttl_seconds, webhook_url, webhook_secret_enc,
                                  schedule_cron, schedule_timezone, schedule_catch_up, next_run_at,
                                  concurrency_limit, concurrency_per_key, concurrency_key_from, concurrency_pool_id)
            VALUES (${id}, ${environmentId}, ${t.name}, ${t.description}, ${t.worker_id}, ${t.command}, ${jsonb(t.input)}::jsonb, ${jsonb(t.input_schema)}::jsonb,
                    ${t.default_tags}::text[], ${t.timeout_seconds}, ${t.heartbeat_timeout_seconds}, ${t.max_retries},
                    ${jsonb(t.retry_policy)}::jsonb, ${t.ttl_seconds}, ${t.webhook_url},
                    ${t.webhook_secret_enc}, ${t.schedule_cron}, ${t.schedule_timezone}, ${t.schedule_catch_up},
                    ${iso(t.next_run_at)}::timestamptz,
                    ${t.concurrency_limit}::int, ${t.concurrency_per_key}::int, ${t.concurrency_key_from}, ${t.concurrency_pool_id}::uuid)
            RETURNING ${columns}`
    })

    const insert = (id: string, environmentId: string, changes: TriggerChanges): Effect.Effect<Trigger> =>
      Effect.orDie(inserted({ id, environmentId, changes }))

    const locked = SqlSchema.findOne({
      Request: Schema.String,
      Result: LockedTriggerRow,
      execute: (id) => sql`SELECT ${columns}, webhook_secret_enc FROM triggers WHERE id = ${id} AND deleted_at IS NULL FOR UPDATE`
    })

    /** Locks the row for a read-modify-write inside the caller's transaction. */
    const lockActive = (id: string): Effect.Effect<Option.Option<typeof LockedTriggerRow.Type>> => Effect.orDie(locked(id))

    const updated = SqlSchema.findOne({
      Request: Schema.Struct({ id: Schema.String, changes: TriggerChanges }),
      Result: TriggerRow,
      execute: ({ changes: t, id }) =>
        sql`UPDATE triggers SET name = ${t.name}, description = ${t.description}, worker_id = ${t.worker_id},
              command = ${t.command}, input = ${jsonb(t.input)}::jsonb, input_schema = ${jsonb(t.input_schema)}::jsonb,
              default_tags = ${t.default_tags}::text[], timeout_seconds = ${t.timeout_seconds},
              heartbeat_timeout_seconds = ${t.heartbeat_timeout_seconds}, max_retries = ${t.max_retries},
              retry_policy = ${jsonb(t.retry_policy)}::jsonb, ttl_seconds = ${t.ttl_seconds},
              webhook_url = ${t.webhook_url}, webhook_secret_enc = ${t.webhook_secret_enc},
              schedule_cron = ${t.schedule_cron}, schedule_timezone = ${t.schedule_timezone},
              schedule_catch_up = ${t.schedule_catch_up}, next_run_at = ${iso(t.next_run_at)}::timestamptz,
              concurrency_limit = ${t.concurrency_limit}::int, concurrency_per_key = ${t.concurrency_per_key}::int,
              concurrency_key_from = ${t.concurrency_key_from}, concurrency_pool_id = ${t.concurrency_pool_id}::uuid,
              updated_at = now()
            WHERE id = ${id} AND deleted_at IS NULL
            RETURNING ${columns}`
    })

    const update = (id: string, changes: TriggerChanges): Effect.Effect<Option.Option<Trigger>> =>
      Effect.orDie(updated({ id, changes }))

    /**
     * Soft delete in one conditional statement, so a run requested at the same
     * moment either lands before (and blocks the delete) or finds the trigger
     * gone. False when the trigger is missing, deleted or still has active runs.
     */
    const deleted = SqlSchema.findOne({
      Request: Schema.String,
      Result: Schema.Struct({ id: Schema.String }),
      execute: (id) =>
        sql`UPDATE triggers SET deleted_at = now(), updated_at = now()
            WHERE id = ${id} AND deleted_at IS NULL
              AND NOT EXISTS (
                SELECT 1 FROM runs WHERE trigger_id = ${id} AND status IN ${sql.in(activeStatuses)})
            RETURNING id`
    })

    const softDelete = (id: string): Effect.Effect<boolean> => deleted(id).pipe(Effect.map(Option.isSome), Effect.orDie)

    const tokenReplaced = SqlSchema.findOne({
      Request: Schema.Struct({ id: Schema.String, hash: Schema.String }),
      Result: Schema.Struct({ id: Schema.String }),
      execute: ({ hash, id }) => sql`UPDATE triggers SET mcp_token_hash = ${hash} WHERE id = ${id} AND deleted_at IS NULL RETURNING id`
    })

    /** Replaces the MCP token hash; false when the trigger is missing or deleted. */
    const setMcpTokenHash = (id: string, hash: string): Effect.Effect<boolean> =>
      tokenReplaced({ id, hash }).pipe(Effect.map(Option.isSome), Effect.orDie)

    const listed = SqlSchema.findAll({
      Request: Schema.Struct({
        environmentId: Schema.String,
        after: Schema.UndefinedOr(Schema.String),
        workerId: Schema.UndefinedOr(Schema.String),
        limit: Schema.Number
      }),
      Result: TriggerRow,
      execute: ({ after, environmentId, limit, workerId }) =>
        sql`SELECT ${columns} FROM triggers
            WHERE ${
          sql.and([
            sql`environment_id = ${environmentId}`,
            sql`deleted_at IS NULL`,
            ...(after === undefined ? [] : [sql`id < ${after}`]),
            ...(workerId === undefined ? [] : [sql`worker_id = ${workerId}`])
          ])
        }
            ORDER BY id DESC
            LIMIT ${limit + 1}`
    })

    /** Newest first; `limit + 1` rows so the caller can tell whether there is a next page. */
    const list = (
      environmentId: string,
      options: { readonly after?: string | undefined; readonly workerId?: string | undefined; readonly limit: number }
    ): Effect.Effect<ReadonlyArray<Trigger>> =>
      listed({ environmentId, after: options.after, workerId: options.workerId, limit: options.limit }).pipe(
        Effect.orDie,
        Effect.withSpan("TriggersRepo.list")
      )

    return { findActive, insert, lockActive, update, softDelete, setMcpTokenHash, list } as const
  }),
}) {}

const iso = (date: Date | null): string | null => date === null ? null : date.toISOString()

/** `input` is any JSON, stored as jsonb; an absent input is SQL NULL. */
const jsonb = (value: unknown): string | null => value === undefined || value === null ? null : JSON.stringify(value)
