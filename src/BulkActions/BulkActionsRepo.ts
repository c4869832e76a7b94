import * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import type { AuditAction } from "../Audit/AuditLog.js"
import { uuidv7 } from "../Crypto/Ids.js"
import { activeStatuses, type RunStatus } from "../Contract/Domain/Run.js"
import type { BulkAction, BulkActionKind, BulkActionState } from "../Contract/BulkActionsApi.js"

/** A `bulk_actions` row. */
export interface BulkActionRow {
  readonly id: string
  readonly environment_id: string
  readonly action: BulkActionKind
  readonly filter: Record<string, string> | null
  readonly run_ids_given: number | null
  readonly idempotency_key: string | null
  readonly actor_type: string
  readonly actor_id: string | null
  readonly actor_role: string | null
  readonly state: BulkActionState
  readonly matched: number
  readonly done: number
  readonly skipped_already_ended: number
  readonly skipped_not_visible: number
  readonly failed: number
  readonly last_error: string | null
  readonly cursor: string | null
  readonly lease_owner: string | null
  readonly lease_until: Date | null
  readonly cancel_requested_at: Date | null
  readonly created_at: Date
  readonly started_at: Date | null
  readonly ended_at: Date | null
}

/** Which runs a filter matches (decoded: timestamps as dates). */
export interface MatchFilter {
  readonly status?: RunStatus | undefined
  readonly triggerId?: string | undefined
  readonly tag?: string | undefined
  readonly from?: Date | undefined
  readonly to?: Date | undefined
}

export interface NewBulkAction {
  readonly environmentId: string
  readonly action: BulkActionKind
  /** As stored and read back (timestamps as ISO strings). */
  readonly filterView: Record<string, string> | undefined
  readonly filter: MatchFilter | undefined
  readonly runIds: ReadonlyArray<string> | undefined
  readonly idempotencyKey: string | undefined
  readonly actor: { readonly type: string; readonly id: string | null; readonly role: string | null }
}

/** One run of a batch, as the runner needs it; the run's fields are null when no such run is in the environment. */
export interface BatchItem {
  readonly run_id: string
  readonly found: boolean
  readonly ended: boolean
  readonly trigger_id: string | null
  readonly environment_id: string | null
  readonly input: unknown
  readonly tags: ReadonlyArray<string> | null
}

/** What a batch came to, added to the bulk action's counts. */
export interface Progress {
  readonly cursor: string
  readonly done: number
  readonly alreadyEnded: number
  readonly notVisible: number
  readonly failed: number
  readonly lastError: string | undefined
}

const date = (value: Date | string | null): Date | null => value === null ? null : value instanceof Date ? value : new Date(value)

/** The contract's object of a row. */
export const toBulkAction = (row: BulkActionRow): BulkAction => ({
  id: row.id,
  environmentId: row.environment_id,
  action: row.action,
  filter: row.filter,
  runIdCount: row.run_ids_given,
  state: row.state,
  matched: row.matched,
  done: row.done,
  skipped: row.skipped_already_ended + row.skipped_not_visible,
  skippedReasons: { alreadyEnded: row.skipped_already_ended, notVisible: row.skipped_not_visible },
  failed: row.failed,
  lastError: row.last_error,
  cancelRequestedAt: date(row.cancel_requested_at),
  createdAt: date(row.created_at)!,
  startedAt: date(row.started_at),
  endedAt: date(row.ended_at)
})

/**
 * Bulk actions and the runs each matched. The lease: one instance at a time
 * works through a bulk action, the one whose conditional UPDATE took it
 * (`claim`: not ended, no lease or an expired one) and that renews it with
 * every batch it records (`record`: only while the lease is still its own).
 * An instance that stops, however it stops, lets its lease expire, and
 * another (or the restarted one) resumes from the recorded cursor.
 */
export class BulkActionsRepo extends Effect.Service<BulkActionsRepo>()("BulkActions/Repo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** `status = X` in the words the run indexes answer (see `RunsRepo.list`). */
    const statusCondition = (status: RunStatus) =>
      (activeStatuses as ReadonlyArray<string>).includes(status)
        ? [sql`r.ended_at IS NULL`, ...(status === "queued" ? [sql`r.worker_id IS NULL`] : []), sql`r.status = ${status}`]
        : [sql`r.outcome = ${status}`]

    const matching = (environmentId: string, filter: MatchFilter) =>
      sql`
        SELECT r.id FROM runs r
        WHERE ${
        sql.and([
          sql`r.environment_id = ${environmentId}`,
          ...(filter.triggerId !== undefined ? [sql`r.trigger_id = ${filter.triggerId}`] : []),
          ...(filter.status !== undefined ? statusCondition(filter.status) : []),
          ...(filter.from !== undefined ? [sql`r.created_at >= ${filter.from.toISOString()}::timestamptz`] : []),
          ...(filter.to !== undefined ? [sql`r.created_at <= ${filter.to.toISOString()}::timestamptz`] : []),
          ...(filter.tag !== undefined
            ? [sql`r.id IN (SELECT g.run_id FROM run_tags g WHERE g.environment_id = ${environmentId} AND g.tag = ${filter.tag})`]
            : [])
        ])
      }`

    /**
     * A new bulk action with the runs it matches, in one transaction; or, for
     * a repeated Idempotency-Key, the earlier one (`created: false`).
     */
    const create = (input: NewBulkAction): Effect.Effect<{ readonly row: BulkActionRow; readonly created: boolean }> =>
      sql.withTransaction(Effect.gen(function*() {
        const id = uuidv7()
        const inserted = yield* sql<BulkActionRow>`
          INSERT INTO bulk_actions (id, environment_id, action, filter, run_ids_given, idempotency_key, actor_type, actor_id,
            actor_role, matched, created_at)
          VALUES (${id}, ${input.environmentId}, ${input.action},
            ${input.filterView === undefined ? null : JSON.stringify(input.filterView)}::jsonb,
            ${input.runIds === undefined ? null : input.runIds.length}, ${input.idempotencyKey ?? null},
            ${input.actor.type}, ${input.actor.id}::uuid, ${input.actor.role}, 0, now())
          ON CONFLICT DO NOTHING
          RETURNING *`
        if (inserted.length === 0) {
          const [earlier] = yield* sql<BulkActionRow>`
            SELECT * FROM bulk_actions WHERE environment_id = ${input.environmentId} AND idempotency_key = ${input.idempotencyKey ?? null}`
          return { row: earlier!, created: false }
        }
        // Ids of other environments are kept, and skipped as not visible when reached.
        yield* input.runIds !== undefined
          ? sql`
            INSERT INTO bulk_action_runs (bulk_action_id, run_id)
            SELECT ${id}, u.id FROM unnest(${input.runIds}::uuid[]) AS u(id) ON CONFLICT DO NOTHING`
          : sql`
            INSERT INTO bulk_action_runs (bulk_action_id, run_id)
            SELECT ${id}, m.id FROM (${matching(input.environmentId, input.filter ?? {})}) m`
        const [row] = yield* sql<BulkActionRow>`
          UPDATE bulk_actions SET matched = (SELECT count(*) FROM bulk_action_runs WHERE bulk_action_id = ${id})
          WHERE id = ${id} RETURNING *`
        return { row: row!, created: true }
      })).pipe(Effect.orDie, Effect.withSpan("BulkActionsRepo.create"))

    /** How many runs of the environment the filter matches now. */
    const countMatching = (environmentId: string, filter: MatchFilter): Effect.Effect<number> =>
      sql<{ n: number }>`SELECT count(*)::int AS n FROM (${matching(environmentId, filter)}) m`.pipe(
        Effect.map((rows) => Number(rows[0]?.n ?? 0)),
        Effect.orDie,
        Effect.withSpan("BulkActionsRepo.countMatching")
      )

    const find = (id: string): Effect.Effect<BulkActionRow | undefined> =>
      sql<BulkActionRow>`SELECT * FROM bulk_actions WHERE id = ${id}`.pipe(Effect.map((rows) => rows[0]), Effect.orDie)

    /** Newest first; `limit + 1` rows, for `Pagination.page`. */
    const list = (environmentId: string, before: string | undefined, limit: number): Effect.Effect<ReadonlyArray<BulkActionRow>> =>
      sql<BulkActionRow>`
        SELECT * FROM bulk_actions
        WHERE environment_id = ${environmentId} ${before === undefined ? sql`` : sql`AND id < ${before}`}
        ORDER BY id DESC LIMIT ${limit + 1}`.pipe(Effect.orDie)

    /** Ends the bulk action with its one audit record, in one statement; `guard` says who may. */
    const end = (id: string, state: "completed" | "cancelled", guard: Statement.Fragment): Effect.Effect<BulkActionRow | undefined> =>
      sql<BulkActionRow>`
        WITH ended AS (
          UPDATE bulk_actions SET state = ${state}, ended_at = now(), lease_owner = NULL, lease_until = NULL
          WHERE id = ${id} AND ended_at IS NULL AND ${guard}
          RETURNING *
        ), audited AS (
          INSERT INTO audit_log (id, environment_id, actor_type, actor_id, action, target_type, target_id, metadata)
          SELECT ${uuidv7()}, environment_id, actor_type, actor_id,
            ${(state === "completed" ? "bulk_action.completed" : "bulk_action.cancelled") satisfies AuditAction},
            'bulk_action', id,
            jsonb_build_object('action', action, 'filter', filter, 'runIds', run_ids_given, 'matched', matched, 'done', done,
              'skipped', jsonb_build_object('alreadyEnded', skipped_already_ended, 'notVisible', skipped_not_visible),
              'failed', failed)
          FROM ended
        )
        SELECT * FROM ended`.pipe(Effect.map((rows) => rows[0]), Effect.orDie)

    /**
     * An operator's cancel: one no instance holds ends at once; one being
     * worked through is asked to stop (its runner ends it after the batch in
     * hand). Undefined when it has ended already.
     */
    const cancel = (id: string): Effect.Effect<BulkActionRow | undefined> =>
      Effect.gen(function*() {
        const ended = yield* end(id, "cancelled", sql`(lease_until IS NULL OR lease_until < now())`)
        if (ended !== undefined) return ended
        const [asked] = yield* sql<BulkActionRow>`
          UPDATE bulk_actions SET cancel_requested_at = COALESCE(cancel_requested_at, now())
          WHERE id = ${id} AND ended_at IS NULL RETURNING *`.pipe(Effect.orDie)
        return asked
      })

    /** Takes the oldest bulk action no live lease holds, for `owner`, until `leaseSeconds` from now. */
    const claim = (owner: string, leaseSeconds: number): Effect.Effect<BulkActionRow | undefined> =>
      sql<BulkActionRow>`
        UPDATE bulk_actions SET lease_owner = ${owner}, lease_until = now() + ${leaseSeconds}::int * interval '1 second',
          state = 'running', started_at = COALESCE(started_at, now())
        WHERE id = (
          SELECT id FROM bulk_actions
          WHERE ended_at IS NULL AND (lease_until IS NULL OR lease_until < now())
          ORDER BY id LIMIT 1
          FOR UPDATE SKIP LOCKED)
        RETURNING *`.pipe(Effect.map((rows) => rows[0]), Effect.orDie, Effect.withSpan("BulkActionsRepo.claim"))

    /** The next runs after `cursor`, in id order, with what the runner needs of each (in the bulk action's environment only). */
    const batch = (row: BulkActionRow, cursor: string | null, size: number): Effect.Effect<ReadonlyArray<BatchItem>> =>
      sql<BatchItem>`
        SELECT i.run_id, r.id IS NOT NULL AS found, r.ended_at IS NOT NULL AS ended,
          r.trigger_id, r.environment_id, r.input, r.tags
        FROM bulk_action_runs i
        LEFT JOIN runs r ON r.id = i.run_id AND r.environment_id = ${row.environment_id}
        WHERE i.bulk_action_id = ${row.id} ${cursor === null ? sql`` : sql`AND i.run_id > ${cursor}`}
        ORDER BY i.run_id LIMIT ${size}`.pipe(Effect.orDie, Effect.withSpan("BulkActionsRepo.batch"))

    /**
     * A batch's progress and the lease renewed, only while the lease is
     * `owner`'s: undefined when it is not (it expired and another instance
     * took the bulk action over; that one goes on from the cursor it reads).
     */
    const record = (id: string, owner: string, leaseSeconds: number, progress: Progress): Effect.Effect<BulkActionRow | undefined> =>
      sql<BulkActionRow>`
        UPDATE bulk_actions SET cursor = ${progress.cursor}, done = done + ${progress.done},
          skipped_already_ended = skipped_already_ended + ${progress.alreadyEnded},
          skipped_not_visible = skipped_not_visible + ${progress.notVisible},
          failed = failed + ${progress.failed},
          last_error = COALESCE(${progress.lastError ?? null}, last_error),
          lease_until = now() + ${leaseSeconds}::int * interval '1 second'
        WHERE id = ${id} AND lease_owner = ${owner} AND ended_at IS NULL
        RETURNING *`.pipe(Effect.map((rows) => rows[0]), Effect.orDie, Effect.withSpan("BulkActionsRepo.record"))

    /** Ends a bulk action `owner` holds: completed, or cancelled when its cancel was asked for. */
    const finish = (id: string, owner: string, state: "completed" | "cancelled"): Effect.Effect<BulkActionRow | undefined> =>
      end(id, state, sql`lease_owner = ${owner}`)

    /** Whether the bulk action cancelled the run (its `run.cancelled` record names it): a batch done again after a crash. */
    const cancelledBy = (row: BulkActionRow, runId: string): Effect.Effect<boolean> =>
      sql<{ found: boolean }>`
        SELECT EXISTS (
          SELECT 1 FROM audit_log WHERE environment_id = ${row.environment_id} AND target_id = ${runId}
            AND action = 'run.cancelled' AND metadata->>'bulkActionId' = ${row.id}) AS found`.pipe(
        Effect.map((rows) => rows[0]?.found === true),
        Effect.orDie
      )

    /** Lets go of what `owner` holds (a graceful stop), so another instance resumes it at once. */
    const release = (owner: string): Effect.Effect<void> =>
      sql`UPDATE bulk_actions SET lease_until = now() WHERE lease_owner = ${owner} AND ended_at IS NULL`.pipe(Effect.asVoid, Effect.orDie)

    return { create, countMatching, find, list, cancel, claim, batch, record, finish, cancelledBy, release } as const
  })
}) {}
