import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { CurrentActor } from "../Auth/Security.js"
import type { InsufficientRole, NotVisible } from "../Tenancy/TenancyErrors.js"
import { TriggerNotFound } from "./TriggerErrors.js"
import type { Role } from "../Domain/Schemas.js"
import { Policy } from "../Tenancy/Policy.js"

/** A row of `triggers`, as every query here selects it. */
export interface TriggerRow {
  readonly id: string
  readonly environment_id: string
  readonly name: string
  readonly description: string | null
  readonly worker_id: string | null
  readonly input: unknown
  readonly timeout_seconds: number
  readonly heartbeat_timeout_seconds: number
  readonly max_retries: number
  readonly webhook_url: string | null
  /** AES-256-GCM ciphertext (SecretBox); never leaves the server. */
  readonly webhook_secret_enc: string | null
  readonly schedule_cron: string | null
  readonly schedule_timezone: string | null
  readonly schedule_catch_up: "latest" | "none" | null
  /** The next tick of the schedule; null without one. */
  readonly next_run_at: Date | null
  readonly created_at: Date
  readonly updated_at: Date
}

export const activeRunStatuses = ["queued", "assigned", "claimed", "running"] as const

export interface TriggerChanges {
  readonly name: string
  readonly description: string | null
  readonly worker_id: string | null
  readonly input: unknown
  readonly timeout_seconds: number
  readonly heartbeat_timeout_seconds: number
  readonly max_retries: number
  readonly webhook_url: string | null
  readonly webhook_secret_enc: string | null
  readonly schedule_cron: string | null
  readonly schedule_timezone: string | null
  readonly schedule_catch_up: "latest" | "none" | null
  readonly next_run_at: Date | null
}

/**
 * Data access for triggers. A soft-deleted trigger is invisible to every
 * query here: other features (runs, webhook deliveries) use `findVisible` to
 * answer 404 for it exactly as for a trigger that never existed.
 */
export class TriggersRepo extends Effect.Service<TriggersRepo>()("Triggers/Repo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const policy = yield* Policy

    /** The trigger when it exists and is not deleted; no access check. */
    const findActive = (id: string): Effect.Effect<Option.Option<TriggerRow>> =>
      sql<TriggerRow>`SELECT * FROM triggers WHERE id = ${id} AND deleted_at IS NULL`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0])),
        Effect.orDie,
        Effect.withSpan("TriggersRepo.findActive")
      )

    /**
     * The trigger when it exists, is not deleted and the caller has at least
     * `min` in its environment: `TriggerNotFound` when missing or deleted;
     * the access policy's `NotVisible` or `InsufficientRole` otherwise.
     */
    const findVisible = (id: string, min: Role): Effect.Effect<TriggerRow, TriggerNotFound | NotVisible | InsufficientRole, CurrentActor> =>
      Effect.gen(function*() {
        const row = yield* findActive(id)
        if (Option.isNone(row)) return yield* Effect.fail(new TriggerNotFound({ triggerId: id }))
        yield* policy.requireRole(row.value.environment_id, min, "trigger")
        return row.value
      })

    const insert = (id: string, environmentId: string, t: TriggerChanges): Effect.Effect<TriggerRow> =>
      sql<TriggerRow>`
        INSERT INTO triggers (id, environment_id, name, description, worker_id, input, timeout_seconds,
                              heartbeat_timeout_seconds, max_retries, webhook_url, webhook_secret_enc,
                              schedule_cron, schedule_timezone, schedule_catch_up, next_run_at)
        VALUES (${id}, ${environmentId}, ${t.name}, ${t.description}, ${t.worker_id}, ${jsonb(t.input)}::jsonb,
                ${t.timeout_seconds}, ${t.heartbeat_timeout_seconds}, ${t.max_retries}, ${t.webhook_url},
                ${t.webhook_secret_enc}, ${t.schedule_cron}, ${t.schedule_timezone}, ${t.schedule_catch_up},
                ${iso(t.next_run_at)}::timestamptz)
        RETURNING *`.pipe(Effect.map((rows) => rows[0]!), Effect.orDie)

    /** Locks the row for a read-modify-write inside the caller's transaction. */
    const lockActive = (id: string): Effect.Effect<Option.Option<TriggerRow>> =>
      sql<TriggerRow>`SELECT * FROM triggers WHERE id = ${id} AND deleted_at IS NULL FOR UPDATE`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0])),
        Effect.orDie
      )

    const update = (id: string, t: TriggerChanges): Effect.Effect<Option.Option<TriggerRow>> =>
      sql<TriggerRow>`
        UPDATE triggers SET name = ${t.name}, description = ${t.description}, worker_id = ${t.worker_id},
          input = ${jsonb(t.input)}::jsonb, timeout_seconds = ${t.timeout_seconds},
          heartbeat_timeout_seconds = ${t.heartbeat_timeout_seconds}, max_retries = ${t.max_retries},
          webhook_url = ${t.webhook_url}, webhook_secret_enc = ${t.webhook_secret_enc},
          schedule_cron = ${t.schedule_cron}, schedule_timezone = ${t.schedule_timezone},
          schedule_catch_up = ${t.schedule_catch_up}, next_run_at = ${iso(t.next_run_at)}::timestamptz, updated_at = now()
        WHERE id = ${id} AND deleted_at IS NULL
        RETURNING *`.pipe(Effect.map((rows) => Option.fromNullable(rows[0])), Effect.orDie)

    /**
     * Soft delete in one conditional statement, so a run requested at the same
     * moment either lands before (and blocks the delete) or finds the trigger
     * gone. False when the trigger is missing, deleted or still has active runs.
     */
    const softDelete = (id: string): Effect.Effect<boolean> =>
      sql<{ id: string }>`
        UPDATE triggers SET deleted_at = now(), updated_at = now()
        WHERE id = ${id} AND deleted_at IS NULL
          AND NOT EXISTS (
            SELECT 1 FROM runs WHERE trigger_id = ${id} AND status IN ${sql.in(activeRunStatuses)})
        RETURNING id`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie)

    /** Replaces the MCP token hash; false when the trigger is missing or deleted. */
    const setMcpTokenHash = (id: string, hash: string): Effect.Effect<boolean> =>
      sql<{ id: string }>`
        UPDATE triggers SET mcp_token_hash = ${hash} WHERE id = ${id} AND deleted_at IS NULL RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie
      )

    /** Newest first; `limit + 1` rows so the caller can tell whether there is a next page. */
    const list = (
      environmentId: string,
      options: { readonly after?: string | undefined; readonly workerId?: string | undefined; readonly limit: number }
    ): Effect.Effect<ReadonlyArray<TriggerRow>> =>
      sql<TriggerRow>`
        SELECT * FROM triggers
        WHERE ${
        sql.and([
          sql`environment_id = ${environmentId}`,
          sql`deleted_at IS NULL`,
          ...(options.after === undefined ? [] : [sql`id < ${options.after}`]),
          ...(options.workerId === undefined ? [] : [sql`worker_id = ${options.workerId}`])
        ])
      }
        ORDER BY id DESC
        LIMIT ${options.limit + 1}`.pipe(Effect.orDie, Effect.withSpan("TriggersRepo.list"))

    return { findActive, findVisible, insert, lockActive, update, softDelete, setMcpTokenHash, list } as const
  }),
  dependencies: [Policy.Default]
}) {}

const iso = (date: Date | string | null): string | null => date === null ? null : new Date(date).toISOString()

/** `input` is any JSON, stored as jsonb; an absent input is SQL NULL. */
const jsonb = (value: unknown): string | null => value === undefined || value === null ? null : JSON.stringify(value)
