import type * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { actorColumns, type AuditAction, type AuditActor } from "../Audit/AuditLog.js"
import { hotSpan } from "../Config/Tracing.js"
import { uuidv7 } from "../Crypto/Ids.js"
import type { PolledRow, RunRow } from "../Domain/Run.js"
import { nowIso } from "../Domain/Time.js"
import { freePlaces, placeOrder, type PlacementRules } from "./Placement.js"
import { recordRunEvents } from "./RunEvents.js"

export interface Created {
  /** The run as requested (a new run reads `queued`, as the contract answers it). */
  readonly run: RunRow
  /** False when an earlier request with the same Idempotency-Key made the run. */
  readonly created: boolean
  /** Where the new run went in the same statement, when it was assigned at once. */
  readonly assigned?: {
    readonly workerId: string
    readonly deadlineAt: Date
    /** Claimed outright for one of `Placement.claimFor`'s polls: the row to hand it. */
    readonly claimed: PolledRow | undefined
  } | undefined
}

/** One run request: its input (the trigger's when undefined), Idempotency-Key and who asked. */
export interface CreateRequest {
  readonly input: { readonly value: unknown } | undefined
  readonly idempotencyKey: string | undefined
  readonly actor: AuditActor
  /** The schedule tick (epoch ms) this run is for; a trigger has at most one run per tick. */
  readonly scheduledFor?: number | undefined
}

/**
 * A schedule tick's firing: the statement creates its run only if it moves
 * the trigger's `next_run_at` from `from` (the value the scheduler read) to
 * `to` (null: no further tick), so of any number of instances firing the same
 * tick exactly one creates the run, in the statement that advances the schedule.
 */
export interface Advance {
  readonly from: number
  readonly to: number | undefined
}

/**
 * For a new run to be assigned in the statement that creates it, by the
 * placement rule (`RunStore/Placement`), and only when nothing older is queued
 * in its environment, so no run jumps the queue.
 */
export interface Placement extends PlacementRules {
  readonly claimTimeoutSeconds: number
  /** The channel that wakes long-polling workers on every instance. */
  readonly channel: string
  /**
   * Workers with a `claim=true` poll waiting on this instance: a run placed
   * on one of them is claimed in the same statement, to be handed to the poll.
   */
  readonly claimFor?: ReadonlyArray<string>
}

/** Run creation: new runs of one trigger, with idempotency, audit and (optionally) placement, in one statement. */
export const make = (sql: SqlClient.SqlClient) => {
  /**
   * New queued runs of one trigger, one per request, with the trigger's
   * settings as they are now (timeouts, retries, webhook URL and sealed
   * secret): a later PATCH affects only later runs. Answers one entry per
   * request, in order; undefined when the trigger is gone. The trigger row
   * is key-share locked (the lock the foreign key takes anyway, so
   * concurrent requests do not stack up stronger locks on it): the soft
   * delete locks it FOR UPDATE, so it either sees these runs or happens
   * first, and then this statement re-reads the row, finds it deleted and
   * inserts nothing.
   *
   * One statement for the lot (`RunRequests` groups concurrent requests):
   * the lock, placement, inserts and audit rows. With placement, the runs
   * are spread as one at a time would be: each to the worker with the
   * fewest active runs counting those placed before it in the statement.
   */
  const createMany = (
    triggerId: string,
    requests: ReadonlyArray<CreateRequest>,
    options: {
      /** Only a trigger of this environment (the caller's, when it is known without a lookup). */
      readonly environmentId?: string | undefined
      /** Assign the runs at once where the scheduler's rules allow. */
      readonly placement?: Placement | undefined
      /** Only if the trigger's schedule moves on from this tick (see `Advance`). */
      readonly advance?: Advance | undefined
    } = {}
  ): Effect.Effect<ReadonlyArray<Created | undefined>> =>
    Effect.gen(function*() {
      const now = yield* nowIso
      const ids = requests.map(() => uuidv7())
      const column = <A>(f: (request: CreateRequest) => A) => requests.map(f)
      const place = options.placement
      const advance = options.advance
      const scopedToEnvironment = options.environmentId === undefined ? sql`` : sql`AND environment_id = ${options.environmentId}`
      // One round trip for the lock, placement, inserts and audit rows. A
      // placed run skips the assignment pass (two more round trips before
      // its worker's poll wakes).
      const rows = yield* sql<PolledRow & { readonly notified: boolean | null }>`
        WITH input AS (
          SELECT * FROM unnest(
            ${ids}::uuid[], ${column((r) => r.input !== undefined)}::bool[],
            ${column((r) => r.input === undefined || r.input.value === undefined || r.input.value === null ? null : JSON.stringify(r.input.value))}::text[],
            ${column((r) => r.idempotencyKey ?? null)}::text[],
            ${column((r) => actorColumns(r.actor).type)}::text[], ${column((r) => actorColumns(r.actor).id)}::uuid[],
            ${column((r) => JSON.stringify({
              triggerId,
              idempotencyKey: r.idempotencyKey !== undefined,
              ...(r.scheduledFor === undefined ? {} : { scheduledFor: new Date(r.scheduledFor).toISOString() })
            }))}::text[],
            ${requests.map(() => uuidv7())}::uuid[],
            ${column((r) => r.scheduledFor === undefined ? null : new Date(r.scheduledFor).toISOString())}::timestamptz[]
          ) WITH ORDINALITY AS i(id, explicit, input, idempotency_key, actor_type, actor_id, metadata, audit_id, scheduled_for, n)
        ), t AS (${
        advance === undefined ? sql`
          SELECT * FROM triggers WHERE id = ${triggerId} AND deleted_at IS NULL ${scopedToEnvironment}
          FOR KEY SHARE` : sql`
          -- Conditional on the tick read: a concurrent firing of the same
          -- tick waits for this row, then finds it moved on and creates nothing.
          UPDATE triggers SET next_run_at = ${advance.to === undefined ? null : new Date(advance.to).toISOString()}::timestamptz
          WHERE id = ${triggerId} AND deleted_at IS NULL AND schedule_cron IS NOT NULL
            AND next_run_at = ${new Date(advance.from).toISOString()}::timestamptz ${scopedToEnvironment}
          RETURNING *`
      }
        ), ${
        place === undefined ? sql`pick AS (SELECT NULL::uuid AS id, false AS claim, 0::bigint AS n WHERE false)` : sql`
          -- Checked before any worker's load is counted: under a backlog
          -- (the case where counting is dearest) nothing is placed anyway.
          open AS MATERIALIZED (
            SELECT t.* FROM t WHERE NOT EXISTS (
              SELECT 1 FROM runs q WHERE q.environment_id = t.environment_id
                AND q.worker_id IS NULL AND q.ended_at IS NULL AND q.status = 'queued')
          ), slot AS (${
          freePlaces(sql, now, place, {
            from: sql`open t JOIN workers w ON w.environment_id = t.environment_id AND (t.worker_id IS NULL OR w.id = t.worker_id)`,
            wanted: requests.length,
            // Among equals, a worker whose poll waits here. That poll is handed one run.
            polling: sql`w.id = ANY(${place.claimFor ?? []}::uuid[])`
          })
        }), pick AS (
            SELECT id, polling AND k = 0 AS claim, row_number() OVER (ORDER BY ${placeOrder(sql)}) AS n
            FROM slot
            ORDER BY n LIMIT ${requests.length}
          )`
      }, created AS (
          INSERT INTO runs (id, trigger_id, environment_id, status, attempt, input, idempotency_key,
            timeout_seconds, heartbeat_timeout_seconds, max_retries, webhook_url, webhook_secret_enc, created_at,
            worker_id, assigned_at, claimed_at, deadline_at, scheduled_for)
          SELECT i.id, t.id, t.environment_id,
            CASE WHEN pick.id IS NULL THEN 'queued' WHEN pick.claim THEN 'claimed' ELSE 'assigned' END, 1,
            CASE WHEN i.explicit THEN i.input::jsonb ELSE t.input END,
            i.idempotency_key,
            t.timeout_seconds, t.heartbeat_timeout_seconds, t.max_retries, t.webhook_url, t.webhook_secret_enc,
            ${now}::timestamptz,
            pick.id,
            CASE WHEN pick.id IS NULL THEN NULL ELSE ${now}::timestamptz END,
            CASE WHEN pick.claim THEN ${now}::timestamptz END,
            CASE WHEN pick.id IS NULL THEN NULL
              WHEN pick.claim THEN ${now}::timestamptz + t.heartbeat_timeout_seconds * interval '1 second'
              ELSE ${now}::timestamptz + ${place?.claimTimeoutSeconds ?? 0}::int * interval '1 second' END,
            i.scheduled_for
          FROM input i CROSS JOIN t LEFT JOIN pick ON pick.n = i.n
          ORDER BY i.n
          -- A repeated Idempotency-Key (runs_idempotency) or schedule tick (runs_scheduled_tick): no second run.
          ON CONFLICT DO NOTHING
          RETURNING *
        ), audited AS (
          INSERT INTO audit_log (id, environment_id, actor_type, actor_id, action, target_type, target_id, metadata)
          SELECT i.audit_id, created.environment_id, i.actor_type, i.actor_id, ${"run.requested" satisfies AuditAction},
            'run', created.id, i.metadata::jsonb
          FROM created JOIN input i ON i.id = created.id
        ), logged AS (${
        // Requested, then (when placed at once) assigned, then (for a waiting poll) claimed.
        recordRunEvents(sql, {
          from: sql`created CROSS JOIN (VALUES (1, 'queued', 'requested'), (2, 'assigned', 'assigned'), (3, 'claimed', 'claimed'))
            AS step(n, step_status, step_reason)`,
          status: sql`step.step_status`,
          reason: sql`step.step_reason`,
          workerId: sql`CASE WHEN step.n = 1 THEN NULL ELSE created.worker_id END`,
          at: now,
          where: sql`step.n = 1 OR (step.n = 2 AND created.status IN ('assigned', 'claimed')) OR (step.n = 3 AND created.status = 'claimed')`,
          orderBy: sql`created.id, step.n`
        })
      })
        SELECT created.*, t.name AS trigger_name, t.input AS trigger_input,
          -- Delivered at commit: pollers on every instance wake once the run is visible.
          CASE WHEN created.status <> 'assigned' THEN NULL
            ELSE pg_notify(${place?.channel ?? ""}, created.worker_id::text) IS NULL END AS notified
        FROM created CROSS JOIN t`
      const byId = new Map(rows.map((row) => [row.id, row]))
      return yield* Effect.forEach(requests, (request, i): Effect.Effect<Created | undefined> => {
        const row = byId.get(ids[i]!)
        if (row !== undefined) return Effect.succeed(asCreated(row))
        // Not inserted: the trigger is gone, or the key was used before.
        if (request.idempotencyKey === undefined) return Effect.succeed(undefined)
        return replayed(triggerId, request.idempotencyKey, options.environmentId)
      })
    }).pipe(Effect.orDie, hotSpan("RunStore.createMany"))

  const asCreated = (row: PolledRow & { readonly notified: boolean | null }): Created => {
    const { notified: _, trigger_input: _input, trigger_name: _name, ...run } = row
    if (run.worker_id === null || run.deadline_at === null) return { run, created: true }
    const { notified: _n, ...polled } = row
    return {
      // The answer shows the run as requested; its assignment is the scheduler's business.
      run: { ...run, status: "queued" as const, worker_id: null, assigned_at: null, claimed_at: null, deadline_at: null },
      created: true,
      assigned: { workerId: run.worker_id, deadlineAt: run.deadline_at, claimed: run.status === "claimed" ? polled : undefined }
    }
  }

  /**
   * The run an earlier request with the same Idempotency-Key made. Its
   * insert has committed by now (ON CONFLICT waited for it), and this
   * statement takes a new snapshot, so it sees that run. Undefined when the
   * trigger is gone.
   */
  const replayed = (triggerId: string, idempotencyKey: string, environmentId: string | undefined) =>
    sql<RunRow>`
      SELECT r.* FROM runs r JOIN triggers t ON t.id = r.trigger_id AND t.deleted_at IS NULL
      WHERE r.trigger_id = ${triggerId} AND r.idempotency_key = ${idempotencyKey}
        ${environmentId === undefined ? sql`` : sql`AND t.environment_id = ${environmentId}`}`.pipe(
      Effect.map((rows): Created | undefined => rows[0] === undefined ? undefined : { run: rows[0], created: false }),
      Effect.orDie
    )

  return { createMany } as const
}
