import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { actorColumns, type AuditAction } from "../Audit/AuditLog.js"
import type { Actor } from "../Auth/Security.js"
import { uuidv7 } from "../Crypto/Ids.js"
import { nowIso } from "../Scheduler/Time.js"
import type { RunRow, RunStatus } from "./Run.js"

/** The parts of a live (not deleted) trigger a run needs. */
export interface TriggerSnapshot {
  readonly id: string
  readonly environment_id: string
  readonly input: unknown
}

export interface RunFilter {
  readonly triggerId?: string | undefined
  readonly environmentId?: string | undefined
  readonly status?: RunStatus | undefined
  readonly from?: Date | undefined
  readonly to?: Date | undefined
  readonly workerId?: string | undefined
  /** Keyset: only ids below this one (the previous page's last). */
  readonly before?: string | undefined
  readonly limit: number
}

export interface Created {
  readonly run: RunRow
  /** False when an earlier request with the same Idempotency-Key made the run. */
  readonly created: boolean
}

/** Runs as records: creation (with idempotency and audit) and listings. */
export class RunsRepo extends Effect.Service<RunsRepo>()("Runs/Repo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const findTrigger = (triggerId: string): Effect.Effect<TriggerSnapshot | undefined> =>
      sql<TriggerSnapshot>`
        SELECT id, environment_id, input FROM triggers WHERE id = ${triggerId} AND deleted_at IS NULL`.pipe(
        Effect.map((rows) => rows[0]),
        Effect.orDie
      )

    /**
     * A new queued run with the trigger's settings as they are now (timeouts,
     * retries, webhook URL and sealed secret): a later PATCH affects only later
     * runs. Undefined when the trigger is gone. The trigger row is key-share
     * locked (the lock the foreign key takes anyway, so concurrent requests do
     * not stack up stronger locks on it): the soft delete locks it FOR UPDATE,
     * so it either sees this run or happens first, and then this statement
     * re-reads the row, finds it deleted and inserts nothing.
     */
    const create = (
      triggerId: string,
      options: {
        readonly input: { readonly value: unknown } | undefined
        readonly idempotencyKey: string | undefined
        readonly actor: Actor
        /** Only a trigger of this environment (the caller's, when it is known without a lookup). */
        readonly environmentId?: string
      }
    ): Effect.Effect<Created | undefined> =>
      Effect.gen(function*() {
        const now = yield* nowIso
        const id = uuidv7()
        const value = options.input?.value
        const explicit = value === undefined || value === null ? null : JSON.stringify(value)
        const actor = actorColumns(options.actor)
        const metadata = JSON.stringify({ triggerId, idempotencyKey: options.idempotencyKey !== undefined })
        // One statement (share-lock, insert, audit row) instead of a transaction
        // of three: a run request is a hot path, and each round trip counts.
        const rows = yield* sql<RunRow>`
          WITH t AS (
            SELECT * FROM triggers WHERE id = ${triggerId} AND deleted_at IS NULL
              ${options.environmentId === undefined ? sql`` : sql`AND environment_id = ${options.environmentId}`}
            FOR KEY SHARE
          ), created AS (
            INSERT INTO runs (id, trigger_id, environment_id, status, attempt, input, idempotency_key,
              timeout_seconds, heartbeat_timeout_seconds, max_retries, webhook_url, webhook_secret_enc, created_at)
            SELECT ${id}, t.id, t.environment_id, 'queued', 1,
              ${options.input === undefined ? sql`t.input` : sql`${explicit}::jsonb`},
              ${options.idempotencyKey ?? null},
              t.timeout_seconds, t.heartbeat_timeout_seconds, t.max_retries, t.webhook_url, t.webhook_secret_enc,
              ${now}::timestamptz
            FROM t
            ON CONFLICT (trigger_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
            RETURNING *
          ), audited AS (
            INSERT INTO audit_log (id, environment_id, actor_type, actor_id, action, target_type, target_id, metadata)
            SELECT ${uuidv7()}, created.environment_id, ${actor.type}, ${actor.id}, ${"run.requested" satisfies AuditAction},
              'run', created.id, ${metadata}::jsonb
            FROM created
          )
          SELECT * FROM created`
        const run = rows[0]
        if (run !== undefined) return { run, created: true }
        if (options.idempotencyKey === undefined) return undefined
        // The conflicting insert has committed by now (ON CONFLICT waited for it),
        // and this statement takes a new snapshot, so it sees that run.
        const existing = yield* sql<RunRow>`
          SELECT r.* FROM runs r JOIN triggers t ON t.id = r.trigger_id AND t.deleted_at IS NULL
          WHERE r.trigger_id = ${triggerId} AND r.idempotency_key = ${options.idempotencyKey}
            ${options.environmentId === undefined ? sql`` : sql`AND t.environment_id = ${options.environmentId}`}`
        return existing[0] === undefined ? undefined : { run: existing[0], created: false }
      }).pipe(Effect.orDie, Effect.withSpan("RunsRepo.create"))

    const list = (filter: RunFilter): Effect.Effect<ReadonlyArray<RunRow>> =>
      sql<RunRow>`
        SELECT * FROM runs
        WHERE ${
        sql.and([
          ...(filter.triggerId !== undefined ? [sql`trigger_id = ${filter.triggerId}`] : []),
          ...(filter.environmentId !== undefined ? [sql`environment_id = ${filter.environmentId}`] : []),
          ...(filter.status !== undefined ? [sql`status = ${filter.status}`] : []),
          ...(filter.from !== undefined ? [sql`created_at >= ${filter.from.toISOString()}::timestamptz`] : []),
          ...(filter.to !== undefined ? [sql`created_at <= ${filter.to.toISOString()}::timestamptz`] : []),
          ...(filter.workerId !== undefined ? [sql`worker_id = ${filter.workerId}`] : []),
          ...(filter.before !== undefined ? [sql`id < ${filter.before}`] : [])
        ])
      }
        ORDER BY id DESC
        LIMIT ${filter.limit + 1}`.pipe(Effect.orDie, Effect.withSpan("RunsRepo.list"))

    return { findTrigger, create, list } as const
  })
}) {}
