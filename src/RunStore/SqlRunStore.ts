import * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"
import type { Fragment as SqlFragment } from "@effect/sql/Statement"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { actorColumns, type AuditAction } from "../Audit/AuditLog.js"
import { Tuning, type TuningShape } from "../Config/Tuning.js"
import { hotSpan } from "../Config/Tracing.js"
import { uuidv7 } from "../Crypto/Ids.js"
import type { FaultClass, PolledRow, RunEventReason, RunRow, RunStatus } from "../Contract/Domain/Run.js"
import { nowIso } from "../Db/Time.js"
import {
  type CandidateRow,
  freePlaces,
  type LoadedWorker,
  placeEach,
  placeFairly,
  withinKeyOrder,
  placeOrder,
  workerActive,
  workerLastRun,
  workerLoad,
  workerTakesNewRuns,
  queueRank
} from "./Placement.js"
import {
  type Advance,
  type Assigned,
  assignedChannel,
  type Completion,
  type Created,
  type CreateRequest,
  type Ended,
  type InputRules,
  type Lease,
  type MovingStep,
  outboxChannel,
  type Placement,
  RunStore,
} from "./RunStore.js"

/**
 * The run store over Postgres (and the embedded database): every statement
 * that writes `runs`, each in the section of the lifecycle it belongs to.
 * The SET clauses several statements share and the terminal statement every
 * ending goes through come first; `make` at the end gathers the operations
 * `RunStore` declares.
 */

/**
 * The SET clauses and expressions two or more run statements write (the
 * steps, the endings, cancel), defined once so every statement that moves a
 * run to the same state writes the same columns.
 */
const setClauses = (sql: SqlClient.SqlClient, cancelGraceSeconds: number) => {
  // A run whose cancel was requested keeps its worker at most until the
  // grace period ends: no later step may move its deadline past that.
  const cancelCapped = (deadline: Statement.Fragment) =>
    sql`CASE WHEN cancel_requested_at IS NULL THEN ${deadline}
      ELSE LEAST(${deadline}, cancel_requested_at + ${cancelGraceSeconds}::int * interval '1 second') END`

  // The columns claiming and starting set (shared by the single and batched forms).
  const claimedSet = (now: string) =>
    sql`status = 'claimed', deadline_at = ${now}::timestamptz + heartbeat_timeout_seconds * interval '1 second'`
  const startedSet = (now: string) =>
    sql`status = 'running', started_at = ${now}::timestamptz,
      deadline_at = ${cancelCapped(sql`${now}::timestamptz + LEAST(heartbeat_timeout_seconds, timeout_seconds) * interval '1 second'`)}`

  // A run's duration when it ends at `end` (a timestamptz expression).
  const durationUntil = (end: Statement.Fragment) =>
    sql`GREATEST(0, round(EXTRACT(EPOCH FROM (${end} - COALESCE(started_at, claimed_at, created_at))) * 1000))::bigint`

  const completedSet = (now: string) =>
    sql`ended_at = ${now}::timestamptz, duration_ms = ${durationUntil(sql`${now}::timestamptz`)}, deadline_at = NULL`

  // What a passed deadline sets, ended at `end` (shared by the single and
  // grouped forms): a time-out, or, once a cancel was requested, the end of
  // its grace period (`cancelled` whatever the worker did meanwhile).
  // `fault`: the time-out's fault class when the cause is known (a revoked worker); else decided by the deadline.
  const timedOutSet = (end: Statement.Fragment, fault?: FaultClass) =>
    sql`status = CASE WHEN cancel_requested_at IS NULL THEN 'timed_out' ELSE 'cancelled' END,
      ended_at = ${end}, duration_ms = ${durationUntil(end)},
      fault_class = CASE
        WHEN cancel_requested_at IS NOT NULL THEN 'none'
        ${
    fault !== undefined ? sql`ELSE ${fault}` : sql`WHEN status = 'running' AND started_at + timeout_seconds * interval '1 second' <= ${end}
        THEN 'client' ELSE 'infra'`
  } END,
      deadline_at = NULL`

  // A time-out as the timeline names it: past the execution deadline (the
  // run's own fault) or the worker went silent.
  // A cancelled run's grace period ending is its cancellation.
  const timeoutReason = sql`CASE WHEN status = 'cancelled' THEN 'cancelled'
    WHEN fault_class = 'client' THEN 'execution_timeout' ELSE 'heartbeat_timeout' END`

  return { cancelGraceSeconds, cancelCapped, claimedSet, startedSet, durationUntil, completedSet, timedOutSet, timeoutReason } as const
}

type SetClauses = ReturnType<typeof setClauses>

/**
 * Records run transitions in `run_events`, as a fragment to put in the SAME
 * statement as the transition (a data-modifying CTE always runs, referenced
 * or not), so the timeline commits or rolls back with it:
 *
 *   sql`WITH moved AS (
 *         UPDATE runs SET status = 'cancelled', ... WHERE id = ${runId} AND ... RETURNING *
 *       ), logged AS (${recordRunEvents(sql, { from: sql`moved`, reason: "cancelled", at: now })})
 *       SELECT * FROM moved`
 *
 * `from` names a CTE or subquery with the runs' `id`, `environment_id`,
 * `status` and `worker_id` AFTER the transition (`RETURNING *` has them).
 * `at` is an ISO timestamp or a timestamptz fragment (`sql\`i.at\``);
 * `reason` a literal or an SQL expression answering one; `workerId` overrides
 * the worker recorded (e.g. the worker a released run was taken from).
 * Live subscribers (the SSE stream) read new rows of `run_events` by
 * themselves; nothing else is needed for them to see the transition.
 */
const recordRunEvents = (
  sql: SqlClient.SqlClient,
  options: {
    readonly from: Statement.Fragment
    readonly reason: RunEventReason | Statement.Fragment
    readonly at: string | Statement.Fragment
    readonly workerId?: Statement.Fragment | undefined
    /** Overrides the status recorded (one row of `from` recorded as several steps). */
    readonly status?: Statement.Fragment | undefined
    /** Only rows matching this condition (on `from`'s columns). */
    readonly where?: Statement.Fragment | undefined
    /** The order ids are taken in (several steps of one run in one statement). */
    readonly orderBy?: Statement.Fragment | undefined
  }
): Statement.Statement<never> =>
  sql`INSERT INTO run_events (run_id, environment_id, status, at, worker_id, reason)
    SELECT id, environment_id, ${options.status ?? sql`status`},
      ${typeof options.at === "string" ? sql`${options.at}::timestamptz` : options.at},
      ${options.workerId ?? sql`worker_id`},
      ${typeof options.reason === "string" ? sql`${options.reason}::text` : options.reason}
    FROM ${options.from}
    ${options.where === undefined ? sql`` : sql`WHERE ${options.where}`}
    ${options.orderBy === undefined ? sql`` : sql`ORDER BY ${options.orderBy}`}`

/**
 * When the retry of the run `done` may be placed: `now` plus the n-th
 * retry's backoff (n = `done.attempt`), `min(max, initial × factor^(n-1))`
 * spread uniformly by ±jitter; null (at once) without a backoff.
 */
const backoffUntil = (sql: SqlClient.SqlClient, now: string) =>
  sql`CASE WHEN COALESCE((done.retry_policy->>'initialDelaySeconds')::float8, 0) > 0 THEN
      -- To the millisecond, as every moment the service shows and sleeps until.
      date_trunc('milliseconds', ${now}::timestamptz + LEAST(
        (done.retry_policy->>'maxDelaySeconds')::float8,
        (done.retry_policy->>'initialDelaySeconds')::float8 * power((done.retry_policy->>'factor')::float8, done.attempt - 1)
      ) * (1 + (done.retry_policy->>'jitter')::float8 * (2 * random() - 1)) * interval '1 second')
    END`

const withoutExtras = ({ handed: _h, kind: _k, ...row }: RunRow & { readonly kind: string; readonly handed: boolean }): RunRow => row

/**
 * The one statement every ending of a run goes through (completion, time-out,
 * revocation, cancel), with what an ending writes besides the run: its retry
 * and its webhook's outbox row.
 */
const terminalStatement = (sql: SqlClient.SqlClient) =>
  /**
   * Terminal transitions as ONE statement, so they need no transaction of
   * their own: the conditional UPDATE (`done`, any number of runs), then,
   * from its result, each run's retry (same snapshot, attempt + 1, the id
   * given in `retryIds`) when it failed or timed out with retries left, and
   * its webhook outbox row. The outbox row carries no body: it is rendered
   * from the terminal run when it is delivered.
   * With a `lease` owner, the rows are inserted leased to it (the caller
   * hands them over after the statement); otherwise they are inserted free
   * and announced with NOTIFY (delivered at commit, so the row is visible by
   * then) for any instance to lease. Runs the UPDATE did not match are not
   * in the answer; a run it matched without ending it (a cancel request)
   * gets neither a retry nor a webhook. A cancelled run is never retried.
   */
  (
    update: Statement.Statement<RunRow>,
    reason: RunEventReason | Statement.Fragment,
    now: string,
    retryIds: { readonly runIds: ReadonlyArray<string>; readonly ids: ReadonlyArray<string> },
    lease: Lease,
    // One more data-modifying CTE over `done` (an audit row), written in the same statement.
    also?: Statement.Fragment
  ): Effect.Effect<Ended> => {
    const owner = lease.owner
    return sql<RunRow & { readonly kind: "run" | "retry"; readonly handed: boolean }>`
        WITH done AS (${update}),
        retry AS (
          -- The retry keeps its run's concurrency key and placement (docs/flow-control.md).
          INSERT INTO runs (id, trigger_id, environment_id, status, attempt, retry_of_run_id, input,
            timeout_seconds, heartbeat_timeout_seconds, max_retries, webhook_url, webhook_secret_enc, created_at,
            concurrency_key, flow_limited, available_at, delayed, priority, queue_at, ttl_seconds, expires_at, retry_policy)
          SELECT r.retry_id, trigger_id, environment_id, 'queued', attempt + 1, done.id, input,
            timeout_seconds, heartbeat_timeout_seconds, max_retries, webhook_url, webhook_secret_enc, ${now}::timestamptz,
            concurrency_key, flow_limited,
            b.available_at, b.available_at IS NOT NULL, priority,
            CASE WHEN b.available_at IS NOT NULL OR priority <> 0
              THEN COALESCE(b.available_at, ${now}::timestamptz) - priority * interval '1 second' END,
            ttl_seconds, COALESCE(b.available_at, ${now}::timestamptz) + ttl_seconds * interval '1 second', retry_policy
          FROM done JOIN unnest(${retryIds.runIds}::uuid[], ${retryIds.ids}::uuid[]) AS r(run_id, retry_id) ON r.run_id = done.id
          CROSS JOIN LATERAL (SELECT ${backoffUntil(sql, now)} AS available_at) b
          -- A worker's "retryable: false" ends the lineage: no retry will fix that failure.
          WHERE done.status IN ('failed', 'timed_out') AND done.attempt <= done.max_retries AND done.retryable
          RETURNING *
        ),
        logged AS (${recordRunEvents(sql, { from: sql`done`, reason, at: sql`done.ended_at`, where: sql`done.ended_at IS NOT NULL` })}),
        logged_retry AS (${recordRunEvents(sql, { from: sql`retry`, reason: "requested", at: now })}),
        queued AS (
          INSERT INTO webhook_outbox (run_id, trigger_id, url, secret_enc, lease_owner, lease_until)
          SELECT id, trigger_id, webhook_url, webhook_secret_enc, ${owner}::text,
            CASE WHEN ${owner}::text IS NULL THEN NULL
              ELSE now() + ${lease.leaseMillis}::int * interval '1 millisecond' END
          FROM done WHERE webhook_url IS NOT NULL AND ended_at IS NOT NULL
          ON CONFLICT (run_id) DO NOTHING
          RETURNING run_id, lease_owner IS NOT NULL AS handed,
            CASE WHEN lease_owner IS NULL THEN pg_notify(${outboxChannel}, run_id::text) END AS notified
        )${also === undefined ? sql`` : sql`, ${also}`}
        SELECT 'run' AS kind, EXISTS (SELECT 1 FROM queued q WHERE q.run_id = done.id AND q.handed) AS handed, * FROM done
        UNION ALL SELECT 'retry' AS kind, false AS handed, * FROM retry`.pipe(
      Effect.orDie,
      Effect.map((rows) => {
        const retries = new Map(rows.flatMap((r) => r.kind === "retry" ? [[r.retry_of_run_id, withoutExtras(r)] as const] : []))
        return {
          ended: rows.flatMap((r) => r.kind === "run" ? [{ run: withoutExtras(r), retry: retries.get(r.id) }] : []),
          leased: rows.flatMap((r) => r.kind === "run" && r.handed ? [withoutExtras(r)] : [])
        }
      })
    )
  }

/** The terminal statement, as the statements that end runs call it. */
type TerminalStatement = ReturnType<typeof terminalStatement>

/** The trigger (alias) has concurrency limits: its runs are `flow_limited`. */
const limitedTrigger = (sql: SqlClient.SqlClient, alias: string) => sql.literal(
  `(${alias}.concurrency_limit IS NOT NULL OR ${alias}.concurrency_per_key IS NOT NULL OR ${alias}.concurrency_pool_id IS NOT NULL)`
)

/** Run creation: new runs of one trigger, with idempotency, audit and (optionally) placement, in one statement. */
const creation = (sql: SqlClient.SqlClient) => {
  // Exact to the microsecond on both backends (a JavaScript Date would round to the millisecond).
  const version = sql`(extract(epoch from updated_at) * 1000000)::bigint::text`

  /** The trigger's input rules; undefined when it does not exist or is deleted. */
  const inputRules = (triggerId: string): Effect.Effect<InputRules | undefined> =>
    sql<{ environment_id: string; version: string; input: unknown; input_schema: unknown; default_tags: ReadonlyArray<string>; concurrency_key_from: string | null }>`
      SELECT environment_id, ${version} AS version, input, input_schema, default_tags, concurrency_key_from FROM triggers
      WHERE id = ${triggerId} AND deleted_at IS NULL`.pipe(
      Effect.map(([row]) =>
        row === undefined ? undefined : {
          environmentId: row.environment_id,
          version: row.version,
          input: row.input ?? null,
          inputSchema: row.input_schema ?? null,
          defaultTags: row.default_tags ?? [],
          keyFrom: row.concurrency_key_from ?? null
        }
      ),
      Effect.orDie,
      Effect.withSpan("RunStore.inputRules")
    )

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
      /**
       * Only if the trigger is still as its `InputRules` were read (their
       * `version`): the inputs were checked against those rules, so a trigger
       * changed since creates nothing here (as a gone one: the caller re-reads).
       */
      readonly inputVersion?: string | undefined
    } = {}
  ): Effect.Effect<ReadonlyArray<Created | undefined>> =>
    Effect.gen(function*() {
      const nowMs = yield* Clock.currentTimeMillis
      const now = new Date(nowMs).toISOString()
      const ids = requests.map(() => uuidv7())
      const column = <A>(f: (request: CreateRequest) => A) => requests.map(f)
      // A run that may not start yet is never placed by its creating statement; the others are
      // numbered among themselves for the places picked (`pick.n`).
      const delayed = requests.map((r) => r.availableAt !== undefined && r.availableAt > nowMs)
      let placeable = 0
      const placeNumbers = delayed.map((d) => d ? null : ++placeable)
      const queueAt = (r: CreateRequest) =>
        r.availableAt === undefined && (r.priority ?? 0) === 0
          ? null
          : new Date((r.availableAt ?? nowMs) - (r.priority ?? 0) * 1000).toISOString()
      const place = placeable === 0 ? undefined : options.placement
      const advance = options.advance
      const triggerGuard = sql`${options.environmentId === undefined ? sql`` : sql`AND environment_id = ${options.environmentId}`}${
        options.inputVersion === undefined ? sql`` : sql` AND ${version} = ${options.inputVersion}`
      }`
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
              ...(r.scheduledFor === undefined ? {} : { scheduledFor: new Date(r.scheduledFor).toISOString() }),
              ...(r.replayOfRunId === undefined ? {} : { replayOfRunId: r.replayOfRunId })
            }))}::text[],
            ${requests.map(() => uuidv7())}::uuid[],
            ${column((r) => r.scheduledFor === undefined ? null : new Date(r.scheduledFor).toISOString())}::timestamptz[],
            ${column((r) => r.replayOfRunId ?? null)}::uuid[],
            ${column((r) => JSON.stringify(r.tags ?? []))}::text[],
            ${column((r) => r.concurrencyKey ?? "")}::text[],
            ${column((r) => r.availableAt === undefined ? null : new Date(r.availableAt).toISOString())}::timestamptz[],
            ${delayed}::bool[], ${column((r) => r.priority ?? 0)}::int[], ${column(queueAt)}::timestamptz[],
            ${column((r) => r.ttlSeconds ?? null)}::int[], ${placeNumbers}::int[]
          ) WITH ORDINALITY AS i(id, explicit, input, idempotency_key, actor_type, actor_id, metadata, audit_id, scheduled_for,
            replay_of_run_id, tags, concurrency_key, available_at, delayed, priority, queue_at, ttl_seconds, pn, n)
        ), t AS (${
        advance === undefined ? sql`
          SELECT * FROM triggers WHERE id = ${triggerId} AND deleted_at IS NULL ${triggerGuard}
          FOR KEY SHARE` : sql`
          -- Conditional on the tick read: a concurrent firing of the same
          -- tick waits for this row, then finds it moved on and creates nothing.
          UPDATE triggers SET next_run_at = ${advance.to === undefined ? null : new Date(advance.to).toISOString()}::timestamptz
          WHERE id = ${triggerId} AND deleted_at IS NULL AND schedule_cron IS NOT NULL
            AND next_run_at = ${new Date(advance.from).toISOString()}::timestamptz ${triggerGuard}
          RETURNING *`
      }
        ), ${
        place === undefined ? sql`pick AS (SELECT NULL::uuid AS id, false AS claim, false AS start, 0::bigint AS n WHERE false)` : sql`
          -- Checked before any worker's load is counted: under a backlog
          -- (the case where counting is dearest) nothing is placed anyway.
          -- A trigger with limits is placed by the limited placement only (see
          -- limitedPlacement); runs waiting under limits do not hold back others.
          open AS MATERIALIZED (
            SELECT t.* FROM t WHERE NOT ${limitedTrigger(sql, "t")} AND NOT EXISTS (
              SELECT 1 FROM runs q WHERE q.environment_id = t.environment_id
                AND q.worker_id IS NULL AND q.ended_at IS NULL AND NOT q.flow_limited AND NOT q.delayed AND q.status = 'queued')
          ), slot AS (${
          freePlaces(sql, now, place, {
            from: sql`open t JOIN workers w ON w.environment_id = t.environment_id AND (t.worker_id IS NULL OR w.id = t.worker_id)`,
            wanted: placeable,
            // Among equals, a worker whose poll waits here. A claim poll is handed one run.
            polling: sql`w.id = ANY(${[...(place.claimFor ?? []), ...(place.waiting ?? [])]}::uuid[])`,
            claimable: sql`w.id = ANY(${place.claimFor ?? []}::uuid[])`
          })
        }), pick AS (
            SELECT id, claimable AND k = 0 AS claim, claimable AND k = 0 AND id = ANY(${place.startFor ?? []}::uuid[]) AS start,
              row_number() OVER (ORDER BY ${placeOrder(sql)}) AS n
            FROM slot
            ORDER BY n LIMIT ${placeable}
          )`
      }, created AS (
          INSERT INTO runs (id, trigger_id, environment_id, status, attempt, input, idempotency_key,
            timeout_seconds, heartbeat_timeout_seconds, max_retries, webhook_url, webhook_secret_enc, created_at,
            worker_id, assigned_at, claimed_at, started_at, deadline_at, scheduled_for, replay_of_run_id, tags, concurrency_key, flow_limited,
            available_at, delayed, priority, queue_at, ttl_seconds, expires_at, retry_policy)
          SELECT i.id, t.id, t.environment_id,
            CASE WHEN pick.id IS NULL THEN 'queued' WHEN pick.start THEN 'running' WHEN pick.claim THEN 'claimed' ELSE 'assigned' END, 1,
            CASE WHEN i.explicit THEN i.input::jsonb ELSE t.input END,
            i.idempotency_key,
            t.timeout_seconds, t.heartbeat_timeout_seconds, t.max_retries, t.webhook_url, t.webhook_secret_enc,
            ${now}::timestamptz,
            pick.id,
            CASE WHEN pick.id IS NULL THEN NULL ELSE ${now}::timestamptz END,
            CASE WHEN pick.claim THEN ${now}::timestamptz END,
            CASE WHEN pick.start THEN ${now}::timestamptz END,
            CASE WHEN pick.id IS NULL THEN NULL
              -- As a start sets it (startedSet): no cancel can be pending on a run this new.
              WHEN pick.start THEN ${now}::timestamptz + LEAST(t.heartbeat_timeout_seconds, t.timeout_seconds) * interval '1 second'
              WHEN pick.claim THEN ${now}::timestamptz + t.heartbeat_timeout_seconds * interval '1 second'
              ELSE ${now}::timestamptz + ${place?.claimTimeoutSeconds ?? 0}::int * interval '1 second' END,
            i.scheduled_for, i.replay_of_run_id,
            -- The trigger's default tags, then the request's, each once, in that order.
            ARRAY(SELECT tag FROM unnest(t.default_tags || ARRAY(SELECT jsonb_array_elements_text(i.tags::jsonb)))
              WITH ORDINALITY AS u(tag, k) GROUP BY tag ORDER BY min(k)),
            i.concurrency_key, ${limitedTrigger(sql, "t")},
            i.available_at, i.delayed, i.priority, i.queue_at, COALESCE(i.ttl_seconds, t.ttl_seconds),
            -- The time-to-live counts from when the run may start.
            COALESCE(i.available_at, ${now}::timestamptz) + COALESCE(i.ttl_seconds, t.ttl_seconds) * interval '1 second',
            t.retry_policy
          FROM input i CROSS JOIN t LEFT JOIN pick ON pick.n = i.pn
          ORDER BY i.n
          -- A repeated Idempotency-Key (runs_idempotency) or schedule tick (runs_scheduled_tick): no second run.
          ON CONFLICT DO NOTHING
          RETURNING *
        ), audited AS (
          INSERT INTO audit_log (id, environment_id, actor_type, actor_id, action, target_type, target_id, metadata)
          SELECT i.audit_id, created.environment_id, i.actor_type, i.actor_id, ${"run.requested" satisfies AuditAction},
            'run', created.id, i.metadata::jsonb
          FROM created JOIN input i ON i.id = created.id
        ), tagged AS (
          -- Listings by tag walk this table's index (migration 0018).
          INSERT INTO run_tags (run_id, environment_id, tag)
          SELECT created.id, created.environment_id, tag FROM created CROSS JOIN unnest(created.tags) AS tag
        ), logged AS (${
        // Requested, then (when placed at once) assigned, then (for a waiting poll) claimed, and started for one that takes runs started.
        recordRunEvents(sql, {
          from: sql`created CROSS JOIN (VALUES (1, 'queued', 'requested'), (2, 'assigned', 'assigned'), (3, 'claimed', 'claimed'), (4, 'running', 'started'))
            AS step(n, step_status, step_reason)`,
          status: sql`step.step_status`,
          reason: sql`step.step_reason`,
          workerId: sql`CASE WHEN step.n = 1 THEN NULL ELSE created.worker_id END`,
          at: now,
          where: sql`step.n = 1 OR (step.n = 2 AND created.status IN ('assigned', 'claimed', 'running'))
            OR (step.n = 3 AND created.status IN ('claimed', 'running')) OR (step.n = 4 AND created.status = 'running')`,
          orderBy: sql`created.id, step.n`
        })
      })
        SELECT created.*, t.name AS trigger_name, t.input AS trigger_input, t.command AS trigger_command,
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
    const { notified: _, trigger_command: _command, trigger_input: _input, trigger_name: _name, ...run } = row
    if (run.worker_id === null || run.deadline_at === null) return { run, created: true }
    const { notified: _n, ...polled } = row
    return {
      // The answer shows the run as requested; its assignment is the scheduler's business.
      run: { ...run, status: "queued" as const, worker_id: null, assigned_at: null, claimed_at: null, deadline_at: null },
      created: true,
      assigned: { workerId: run.worker_id, deadlineAt: run.deadline_at, claimed: run.status === "claimed" || run.status === "running" ? polled : undefined }
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

  return { createMany, inputRules } as const
}

/** A row of the planning query: a queued run (with its pinned worker) or an online worker (with its load). */
interface PlanRow {
  readonly kind: "run" | "worker" | "limited"
  readonly id: string
  readonly environment_id: string
  readonly pinned: string | null
  readonly active: number
  readonly waiting: number
  readonly recent: boolean
  readonly last_run: string
  /** A run's `queueRank`; null for a worker. */
  readonly rank: Date | null
}

/**
 * The assignment pass: queued runs to `assigned` (runs going back to
 * `queued` are `releases`').
 */
const assignment = (sql: SqlClient.SqlClient, config: TuningShape) => {
  const { placeLimited } = limitedPlacement(sql, config)

  /**
   * Assigns queued runs (of one environment, or of all) to the trigger's
   * pinned worker when it is online, else to the online worker with the
   * fewest active runs; a draining or revoked worker gets none
   * (`workerTakesNewRuns`). Runs with no eligible worker stay queued until a
   * worker polls. Answers the runs assigned, with their workers.
   *
   * It runs on every poll and every new run, so it is built for round trips,
   * not transactions: one read when nothing is queued (the common case);
   * otherwise that read (the candidates and the online workers of their
   * environments together) and ONE conditional UPDATE for the whole batch.
   * Nothing is locked while the plan is made: the UPDATE only takes runs
   * still `queued`, so when two assigners pick the same run it is handed out
   * once and the other skips it.
   */
  const assignFree = (environmentId?: string): Effect.Effect<{ readonly assigned: ReadonlyArray<Assigned>; readonly limited: boolean }> =>
    Effect.gen(function*() {
      const now = yield* nowIso
      // The candidates (oldest first) and the online workers of their
      // environments, in one round trip.
      const online = sql`
            SELECT w.id, w.environment_id, load.active, load.waiting,
              ${workerActive(sql, now, config.activeWorkerSeconds)} AS recent, ${workerLastRun(sql)} AS last_run
            FROM workers w ${workerLoad(sql)}
            WHERE ${workerTakesNewRuns(sql, now, config.workerOfflineAfterSeconds)}`
      const candidates = (scope: SqlFragment) => sql`
            SELECT r.id, r.environment_id, t.worker_id AS pinned, ${queueRank(sql, "r")} AS rank
            FROM runs r JOIN triggers t ON t.id = r.trigger_id
            WHERE r.worker_id IS NULL AND r.ended_at IS NULL AND NOT r.flow_limited AND NOT r.delayed AND r.status = 'queued' AND ${scope}
              AND (r.expires_at IS NULL OR r.expires_at > ${now}::timestamptz)
            ORDER BY ${queueRank(sql, "r")}, r.id
            LIMIT ${config.batchSize}`
      const rows = yield* (environmentId === undefined
        ? sql<PlanRow>`
          WITH c AS (${candidates(sql`true`)}),
          w AS (${online} AND w.environment_id IN (SELECT environment_id FROM c))
          SELECT 'run' AS kind, id, environment_id, pinned, 0 AS active, 0 AS waiting, false AS recent, '' AS last_run, rank FROM c
          UNION ALL
          SELECT 'worker' AS kind, id, environment_id, NULL::uuid, active, waiting, recent, last_run, NULL FROM w
          ORDER BY kind, rank, id`
        // One environment (a poll, a new run): its workers first, and no
        // candidates are read when none of them has room (under a backlog,
        // a page of runs nobody can take would be read for nothing). Nor
        // are its workers read when nothing is queued there (one index
        // probe, evaluated once): an idle fleet's every poll asks, and every
        // worker with its load, read for each, would be most of a poll's cost.
        : sql<PlanRow>`
          WITH w AS (${online} AND w.environment_id = ${environmentId} AND EXISTS (
            SELECT 1 FROM runs q WHERE q.environment_id = ${environmentId} AND q.worker_id IS NULL AND q.ended_at IS NULL
              AND NOT q.flow_limited AND NOT q.delayed AND q.status = 'queued')),
          c AS (${
          candidates(sql`r.environment_id = ${environmentId}
              AND EXISTS (SELECT 1 FROM w WHERE w.waiting < ${config.maxAssignedPerWorker})`)
        })
          SELECT 'run' AS kind, id, environment_id, pinned, 0 AS active, 0 AS waiting, false AS recent, '' AS last_run, rank FROM c
          UNION ALL
          SELECT 'worker' AS kind, id, environment_id, NULL::uuid, active, waiting, recent, last_run, NULL FROM w
          UNION ALL
          -- Runs under limits wait here: the limited placement follows (one probe of runs_queued_limited).
          SELECT 'limited' AS kind, NULL::uuid, NULL::uuid, NULL::uuid, 0, 0, false, '', NULL WHERE EXISTS (
            SELECT 1 FROM runs q WHERE q.environment_id = ${environmentId} AND q.worker_id IS NULL AND q.ended_at IS NULL AND q.flow_limited)
          ORDER BY kind, rank, id`)
      // All environments: the limited placement finds its own.
      const limited = environmentId === undefined || rows.some((r) => r.kind === "limited")
      const queued = rows.filter((r) => r.kind === "run")
      if (queued.length === 0) return { assigned: [], limited }
      const workersByEnv = new Map<string, Array<LoadedWorker>>()
      for (const w of rows) {
        if (w.kind !== "worker") continue
        const list = workersByEnv.get(w.environment_id) ?? []
        list.push({ id: w.id, cost: w.active, waiting: w.waiting, recent: w.recent, polling: false, lastRun: w.last_run })
        workersByEnv.set(w.environment_id, list)
      }
      // The placement rule of `RunStore/Placement`, applied one run at a time
      // over the loads just read. Run creation applies it set-wise in SQL
      // (a worker's k-th free place costs active + k): that form costs a
      // row per free place, 1,000,000 places with 10,000 workers, too many
      // for a pass that can take runs of any trigger and environment.
      const { runIds, workerIds } = placeEach(queued, workersByEnv, config.maxAssignedPerWorker)
      if (runIds.length === 0) return { assigned: [], limited }
      // pg_notify in the same statement is delivered at its commit, so other
      // instances' pollers wake only once the assignment is visible; Postgres
      // folds identical notifications of one transaction into one.
      const assigned = yield* sql<Assigned>`
          WITH plan AS (
            SELECT * FROM unnest(${runIds}::uuid[], ${workerIds}::uuid[]) AS p(run_id, worker_id)
          ), moved AS (
            UPDATE runs SET status = 'assigned', worker_id = plan.worker_id, assigned_at = ${now}::timestamptz,
              deadline_at = ${now}::timestamptz + ${config.claimTimeoutSeconds}::int * interval '1 second'
            FROM plan
            WHERE runs.id = plan.run_id AND runs.status = 'queued' AND NOT runs.flow_limited
            RETURNING runs.id, runs.environment_id, runs.status, runs.worker_id, runs.deadline_at
          ),
          logged AS (${recordRunEvents(sql, { from: sql`moved`, reason: "assigned", at: now })})
          SELECT moved.id, moved.environment_id, moved.worker_id, moved.deadline_at, pg_notify(${assignedChannel}, moved.worker_id::text) FROM moved ORDER BY moved.id`
      return { assigned, limited }
    }).pipe(Effect.orDie)

  /**
   * The free pass, then (when runs under limits wait in the environment, or
   * for all environments) the limited placement: a trigger without limits
   * costs nothing more than before (the probe rides in the free pass's read).
   */
  const assignQueued = (environmentId?: string): Effect.Effect<ReadonlyArray<Assigned>> =>
    Effect.gen(function*() {
      const free = yield* assignFree(environmentId)
      if (!free.limited) return free.assigned
      const limited = yield* placeLimited(environmentId)
      return limited.length === 0 ? free.assigned : [...free.assigned, ...limited]
    })

  return { assignQueued } as const
}

/**
 * The placement of runs whose trigger has concurrency limits (a `limit`, a
 * `perKey` or a pool: `runs.flow_limited`; docs/flow-control.md). The free
 * assignment pass never takes them (`runs_queued` holds only the others).
 *
 * The limits hold on any number of instances because every such placement of
 * an environment happens under ONE transaction-scoped advisory lock of that
 * environment, and counts the places held in a statement that starts after
 * the lock is granted: under READ COMMITTED that statement's snapshot sees
 * every placement the previous holder committed. Places are counted from the
 * runs themselves (`runs_placed_limited`), so whatever ends a run frees its
 * place, and a crashed instance's lock goes with its connection.
 */

/** The advisory-lock namespace (first key) of flow control; the second is the environment id's hash. */
export const flowLockNamespace = 0x70747331

/** A run that holds a place: placed on a worker and not ended (alias `h`). */
const holdsPlace = "h.worker_id IS NOT NULL AND h.ended_at IS NULL AND h.flow_limited"
/** A limited run waiting to be placed (alias `q`). */
const waitsLimited = "q.worker_id IS NULL AND q.ended_at IS NULL AND q.flow_limited"

interface LoadRow {
  readonly id: string
  readonly active: number
  readonly waiting: number
  readonly recent: boolean
  readonly last_run: string
}

const limitedPlacement = (sql: SqlClient.SqlClient, config: TuningShape) => {
  /**
   * The candidates of one environment, read under its lock: for every
   * limited trigger with runs waiting and room under its own and its pool's
   * limit, each of its keys with runs waiting (found by a skip scan of
   * `runs_queued_limited`, one probe per key), and of each key its first
   * runs, as many as the tightest limit has room for.
   */
  const candidates = (environmentId: string) =>
    sql<CandidateRow>`
      WITH lt AS MATERIALIZED (
        SELECT t.id, t.worker_id AS pinned, t.concurrency_limit, t.concurrency_per_key,
          p.id AS pool_id, p."limit" AS pool_limit,
          (SELECT count(*)::int FROM runs h WHERE h.trigger_id = t.id AND ${sql.literal(holdsPlace)}) AS used,
          CASE WHEN p.id IS NULL THEN 0 ELSE (
            SELECT count(*)::int FROM triggers pt JOIN runs h ON h.trigger_id = pt.id AND ${sql.literal(holdsPlace)}
            WHERE pt.concurrency_pool_id = p.id) END AS pool_used
        FROM triggers t LEFT JOIN concurrency_pools p ON p.id = t.concurrency_pool_id
        WHERE t.environment_id = ${environmentId} AND EXISTS (
          SELECT 1 FROM runs q WHERE q.environment_id = ${environmentId} AND q.trigger_id = t.id AND ${sql.literal(waitsLimited)})
      ), open AS MATERIALIZED (
        SELECT * FROM lt
        WHERE (concurrency_limit IS NULL OR used < concurrency_limit) AND (pool_limit IS NULL OR pool_used < pool_limit)
      ), keys AS (
        SELECT open.id AS trigger_id, k.key FROM open CROSS JOIN LATERAL (
          WITH RECURSIVE s(key) AS (
            (SELECT q.concurrency_key FROM runs q
              WHERE q.environment_id = ${environmentId} AND q.trigger_id = open.id AND ${sql.literal(waitsLimited)}
              ORDER BY q.concurrency_key LIMIT 1)
            UNION ALL
            SELECT (SELECT q.concurrency_key FROM runs q
              WHERE q.environment_id = ${environmentId} AND q.trigger_id = open.id AND ${sql.literal(waitsLimited)}
                AND q.concurrency_key > s.key
              ORDER BY q.concurrency_key LIMIT 1)
            FROM s WHERE s.key IS NOT NULL
          )
          SELECT key FROM s WHERE key IS NOT NULL
        ) k
      )
      SELECT c.id AS run_id, c.rank::int AS rank, open.id AS trigger_id, open.pinned, open.concurrency_limit,
        open.concurrency_per_key, open.pool_id, open.pool_limit, open.used, open.pool_used, keys.key, ku.used AS key_used
      FROM keys JOIN open ON open.id = keys.trigger_id
      CROSS JOIN LATERAL (
        SELECT count(*)::int AS used FROM runs h
        WHERE h.trigger_id = keys.trigger_id AND h.concurrency_key = keys.key AND ${sql.literal(holdsPlace)}) ku
      CROSS JOIN LATERAL (
        SELECT f.id, row_number() OVER (ORDER BY f.ord) AS rank FROM (
          SELECT q.id, ${sql.literal(withinKeyOrder)} AS ord FROM runs q
          WHERE q.environment_id = ${environmentId} AND q.trigger_id = keys.trigger_id AND q.concurrency_key = keys.key
            AND ${sql.literal(waitsLimited)} AND NOT q.delayed
          ORDER BY ord
          LIMIT GREATEST(0, LEAST(
            COALESCE(open.concurrency_per_key - ku.used, ${config.batchSize}::int),
            COALESCE(open.concurrency_limit - open.used, ${config.batchSize}::int),
            COALESCE(open.pool_limit - open.pool_used, ${config.batchSize}::int),
            ${config.batchSize}::int))
        ) f
      ) c`

  const workersOf = (environmentId: string, now: string) =>
    sql<LoadRow>`
      SELECT w.id, load.active, load.waiting,
        ${workerActive(sql, now, config.activeWorkerSeconds)} AS recent, ${workerLastRun(sql)} AS last_run
      FROM workers w ${workerLoad(sql)}
      WHERE w.environment_id = ${environmentId} AND ${workerTakesNewRuns(sql, now, config.workerOfflineAfterSeconds)}`

  /** One environment's limited placement, in its own transaction under the environment's lock. */
  const placeIn = (environmentId: string): Effect.Effect<ReadonlyArray<Assigned>> =>
    sql.withTransaction(Effect.gen(function*() {
      yield* sql`SELECT pg_advisory_xact_lock(${flowLockNamespace}::int, hashtext(${environmentId}))`
      // A new statement: its snapshot is taken now that the lock is held.
      const rows = yield* candidates(environmentId)
      if (rows.length === 0) return []
      const now = yield* nowIso
      const workers = (yield* workersOf(environmentId, now)).map((w): LoadedWorker => ({
        id: w.id,
        cost: w.active,
        waiting: w.waiting,
        recent: w.recent,
        polling: false,
        lastRun: w.last_run
      }))
      const { runIds, workerIds } = placeFairly(rows, workers, config.maxAssignedPerWorker)
      if (runIds.length === 0) return []
      return yield* sql<Assigned>`
        WITH plan AS (
          SELECT * FROM unnest(${runIds}::uuid[], ${workerIds}::uuid[]) AS p(run_id, worker_id)
        ), moved AS (
          UPDATE runs SET status = 'assigned', worker_id = plan.worker_id, assigned_at = ${now}::timestamptz,
            deadline_at = ${now}::timestamptz + ${config.claimTimeoutSeconds}::int * interval '1 second'
          FROM plan
          WHERE runs.id = plan.run_id AND runs.status = 'queued' AND runs.worker_id IS NULL AND runs.flow_limited
          RETURNING runs.id, runs.environment_id, runs.status, runs.worker_id, runs.deadline_at
        ),
        logged AS (${recordRunEvents(sql, { from: sql`moved`, reason: "assigned", at: now })})
        SELECT moved.id, moved.environment_id, moved.worker_id, moved.deadline_at,
          pg_notify(${assignedChannel}, moved.worker_id::text)
        FROM moved ORDER BY moved.id`
    })).pipe(Effect.orDie, Effect.withSpan("RunStore.placeLimited", { attributes: { environmentId } }))

  /**
   * Places waiting limited runs of one environment, or of every environment
   * that has some (one transaction each). Answers the runs assigned.
   */
  const placeLimited = (environmentId?: string): Effect.Effect<ReadonlyArray<Assigned>> =>
    environmentId !== undefined
      ? placeIn(environmentId)
      // The environments with limited runs waiting: a skip scan of runs_queued_limited, one probe each.
      : sql<{ environment_id: string }>`
          WITH RECURSIVE e(id) AS (
            (SELECT q.environment_id FROM runs q WHERE ${sql.literal(waitsLimited)} ORDER BY q.environment_id LIMIT 1)
            UNION ALL
            SELECT (SELECT q.environment_id FROM runs q WHERE ${sql.literal(waitsLimited)} AND q.environment_id > e.id
              ORDER BY q.environment_id LIMIT 1)
            FROM e WHERE e.id IS NOT NULL
          )
          SELECT id AS environment_id FROM e WHERE id IS NOT NULL`.pipe(
          Effect.orDie,
          Effect.flatMap((envs) => Effect.forEach(envs, (env) => placeIn(env.environment_id))),
          Effect.map((lists) => lists.flat())
        )

  return { placeLimited } as const
}


/**
 * Moves a trigger's open runs between the free placement and the limited one
 * (`runs.flow_limited`) when the trigger gains or loses its limits. Run
 * inside the trigger's PATCH transaction, which holds the trigger row FOR
 * UPDATE, so no run of the trigger is created meanwhile (run creation takes a
 * key-share lock on it). Runs already holding a place are flagged too, so they
 * count against the new limits; a free placement racing with this re-checks
 * the flag in its UPDATE and leaves a flagged run alone. A statement outside
 * `RunStore`'s interface because the trigger's transaction runs it.
 */
export const relimit = (sql: SqlClient.SqlClient, triggerId: string, limited: boolean): Effect.Effect<void> =>
  sql`UPDATE runs SET flow_limited = ${limited}
    WHERE trigger_id = ${triggerId} AND ended_at IS NULL AND flow_limited <> ${limited}`.pipe(
    Effect.asVoid,
    Effect.orDie,
    Effect.withSpan("RunStore.relimit")
  )

/**
 * Assigned runs going back to `queued` (a claim deadline passed, the worker
 * went offline or was revoked), and a claim undone back to `assigned`. Each
 * is a conditional UPDATE on the run's state, so a run that moved on
 * meanwhile is left alone.
 */
const releases = (sql: SqlClient.SqlClient, config: TuningShape) => {
  /** Claim timeout: an assigned run past its deadline goes back to `queued`; answers its environment (none when it moved on). */
  const releaseExpired = (runId: string): Effect.Effect<ReadonlyArray<{ readonly environment_id: string }>> =>
    Effect.gen(function*() {
      const now = yield* nowIso
      // The timeline names the worker that let the claim deadline pass (read
      // from the row as it was, through the self-join).
      return yield* sql<{ environment_id: string }>`
          WITH released AS (
            UPDATE runs SET status = 'queued', worker_id = NULL, assigned_at = NULL, deadline_at = NULL
            FROM runs old
            WHERE runs.id = ${runId} AND old.id = runs.id AND runs.status = 'assigned' AND runs.deadline_at <= ${now}::timestamptz
            RETURNING runs.id, runs.environment_id, runs.status, old.worker_id AS worker_id
          ),
          logged AS (${recordRunEvents(sql, { from: sql`released`, reason: "claim_timeout", at: now })})
          SELECT environment_id FROM released`
    }).pipe(Effect.orDie)

  /** Runs assigned to workers that went offline go back to `queued`; answers them. */
  const releaseOffline: Effect.Effect<ReadonlyArray<{ readonly id: string; readonly environment_id: string }>> = Effect.gen(function*() {
    const now = yield* nowIso
    return yield* sql<{ id: string; environment_id: string }>`
        WITH released AS (
          UPDATE runs r SET status = 'queued', worker_id = NULL, assigned_at = NULL, deadline_at = NULL
          FROM workers w
          WHERE r.worker_id = w.id AND r.ended_at IS NULL AND r.status = 'assigned'
            AND w.last_seen_at <= ${now}::timestamptz - ${config.workerOfflineAfterSeconds}::int * interval '1 second'
          RETURNING r.id, r.environment_id, r.status, w.id AS worker_id
        ),
        logged AS (${recordRunEvents(sql, { from: sql`released`, reason: "released", at: now })})
        SELECT id, environment_id FROM released`
  }).pipe(Effect.orDie)

  /** A revoked worker's assigned runs go back to `queued`; answers them. */
  const releaseWorker = (workerId: string): Effect.Effect<ReadonlyArray<{ readonly id: string; readonly environment_id: string }>> =>
    Effect.gen(function*() {
      const now = yield* nowIso
      // The timeline names the worker the run was taken from.
      return yield* sql<{ id: string; environment_id: string }>`
          WITH released AS (
            UPDATE runs SET status = 'queued', worker_id = NULL, assigned_at = NULL, deadline_at = NULL
            WHERE worker_id = ${workerId} AND ended_at IS NULL AND status = 'assigned'
            RETURNING id, environment_id, status
          ),
          logged AS (${recordRunEvents(sql, { from: sql`released`, reason: "released", at: now, workerId: sql`${workerId}::uuid` })})
          SELECT id, environment_id FROM released`
    }).pipe(Effect.orDie)

  /**
   * A run claimed in its creating statement for a poll that went away
   * before it could be handed over: back to `assigned` to that worker, as
   * if the claim had never happened (its next poll takes it). Answers the
   * new claim deadline, or nothing when the run has moved on meanwhile.
   */
  const unclaim = (
    runId: string,
    workerId: string
  ): Effect.Effect<ReadonlyArray<{ readonly deadline_at: Date; readonly environment_id: string }>> =>
    Effect.gen(function*() {
      const now = yield* nowIso
      // On the timeline the run is assigned to the worker again.
      return yield* sql<{ deadline_at: Date; environment_id: string }>`
          WITH moved AS (
            UPDATE runs SET status = 'assigned', claimed_at = NULL, started_at = NULL,
              deadline_at = ${now}::timestamptz + ${config.claimTimeoutSeconds}::int * interval '1 second'
            WHERE id = ${runId} AND worker_id = ${workerId}
              -- Claimed for the poll, or claimed and started for one that takes runs started, and not touched since.
              AND (status = 'claimed' OR (status = 'running' AND started_at = claimed_at AND last_heartbeat_at IS NULL))
            RETURNING *
          ),
          logged AS (${recordRunEvents(sql, { from: sql`moved`, reason: "assigned", at: now })})
          SELECT deadline_at, environment_id FROM moved`
    }).pipe(Effect.orDie)

  return { releaseExpired, releaseOffline, releaseWorker, unclaim } as const
}

/**
 * A worker's steps before the end: claim, start and heartbeat, single or
 * grouped, and what a poll hands out. None ends a run, so none writes a
 * retry or a webhook (see `terminalStatement` for those).
 */
const steps = (sql: SqlClient.SqlClient, clauses: SetClauses) => {
  const { cancelCapped, claimedSet, startedSet } = clauses
  // A run past its time-to-live is about to end `expired`: too late to claim it.
  const unexpired = (now: string) => sql`(expires_at IS NULL OR expires_at > ${now}::timestamptz)`

  /**
   * The common table expressions that claim up to `max` of the worker's
   * assigned runs (`picked`, `claimed`: the rows claimed) and record the
   * steps on their timelines; with `start`, started in the same statement.
   */
  const claiming = (workerId: string, max: number, start: boolean, now: string) =>
    sql`picked AS MATERIALIZED (
          SELECT id FROM runs
          WHERE worker_id = ${workerId} AND ended_at IS NULL AND status = 'assigned' AND deadline_at > ${now}::timestamptz
            AND ${unexpired(now)}
          ORDER BY ${queueRank(sql, "runs")}, id LIMIT ${max} FOR UPDATE SKIP LOCKED
        ), claimed AS (
          UPDATE runs SET claimed_at = ${now}::timestamptz, ${start ? startedSet(now) : claimedSet(now)}
          FROM picked
          WHERE runs.id = picked.id AND runs.status = 'assigned'
          RETURNING runs.*),
        logged AS (${
      start
        ? recordRunEvents(sql, {
          from: sql`claimed CROSS JOIN (VALUES (1, 'claimed', 'claimed'), (2, 'running', 'started')) AS step(n, step_status, step_reason)`,
          status: sql`step.step_status`,
          reason: sql`step.step_reason`,
          at: now,
          orderBy: sql`claimed.id, step.n`
        })
        : recordRunEvents(sql, { from: sql`claimed`, reason: "claimed", at: now })
    })`

  /**
   * Claims up to `max` of the worker's assigned runs in one statement (poll
   * with `claim=true`); with `start`, they are started in the same statement
   * (`&start=true`: claimed → running at once, the execution deadline set).
   */
  const claimMany = (workerId: string, max: number, start = false): Effect.Effect<ReadonlyArray<PolledRow>> =>
    Effect.flatMap(nowIso, (now) =>
      sql<PolledRow>`
        WITH ${claiming(workerId, max, start, now)}
        SELECT c.*, t.name AS trigger_name, t.input AS trigger_input, t.command AS trigger_command
        FROM claimed c JOIN triggers t ON t.id = c.trigger_id ORDER BY c.id`.pipe(Effect.orDie))

  /**
   * What the worker channel pushes next, in one statement: up to `max` of the
   * worker's assigned runs claimed and started (as `claimMany` with `start`)
   * and the ids of its runs whose cancel was requested. A push used to take
   * three statements (the cancel requests read before and after the claim).
   * The cancel requests ride on a one-row subquery so the answer has a row
   * even when nothing was claimed (every run column then null).
   */
  const claimForPush = (workerId: string, max: number): Effect.Effect<{ readonly runs: ReadonlyArray<PolledRow>; readonly cancelRequested: ReadonlyArray<string> }> =>
    Effect.flatMap(nowIso, (now) =>
      sql<PolledRow & { readonly cancel_requested: ReadonlyArray<string> }>`
        WITH ${claiming(workerId, max, true, now)},
        handed AS (
          SELECT c.*, t.name AS trigger_name, t.input AS trigger_input, t.command AS trigger_command
          FROM claimed c JOIN triggers t ON t.id = c.trigger_id)
        SELECT h.*, k.cancel_requested
        FROM (SELECT ARRAY(
          SELECT id::text FROM runs WHERE worker_id = ${workerId} AND cancel_requested_at IS NOT NULL AND ended_at IS NULL ORDER BY id
        ) AS cancel_requested) k
        LEFT JOIN handed h ON true
        ORDER BY h.id`.pipe(
        Effect.orDie,
        Effect.map((rows) => ({
          runs: rows.filter((row) => row.id !== null).map(({ cancel_requested: _, ...run }) => run as PolledRow),
          cancelRequested: rows[0]?.cancel_requested ?? []
        }))
      ))

  /** The worker's assigned, not yet claimed runs (what a poll hands out). */
  const assignedTo = (workerId: string, max: number): Effect.Effect<ReadonlyArray<PolledRow>> =>
    Effect.flatMap(nowIso, (now) =>
      sql<PolledRow>`
        SELECT r.*, t.name AS trigger_name, t.input AS trigger_input, t.command AS trigger_command
        FROM runs r JOIN triggers t ON t.id = r.trigger_id
        WHERE r.worker_id = ${workerId} AND r.ended_at IS NULL AND r.status = 'assigned' AND r.deadline_at > ${now}::timestamptz
        ORDER BY ${queueRank(sql, "r")}, r.id LIMIT ${max}`.pipe(Effect.orDie))

  // What each step sets, and the states it moves a run from.
  const stepSet = (step: MovingStep, now: string) => {
    switch (step) {
      case "claim":
        return sql`claimed_at = ${now}::timestamptz, ${claimedSet(now)}`
      case "start":
        return startedSet(now)
      case "heartbeat":
        // The execution deadline (started_at + timeout) caps every heartbeat,
        // so a chatty worker cannot run past timeoutSeconds.
        return sql`last_heartbeat_at = ${now}::timestamptz,
          deadline_at = ${cancelCapped(sql`CASE WHEN status = 'running'
            THEN LEAST(${now}::timestamptz + heartbeat_timeout_seconds * interval '1 second',
                       started_at + timeout_seconds * interval '1 second')
            ELSE ${now}::timestamptz + heartbeat_timeout_seconds * interval '1 second' END`)}`
    }
  }
  const stepFrom = (step: MovingStep, now: string) => {
    switch (step) {
      case "claim":
        return sql`status = 'assigned' AND ${unexpired(now)}`
      case "start":
        return sql`status = 'claimed'`
      case "heartbeat":
        return sql`status IN ('claimed', 'running')`
    }
  }

  /**
   * Claims, starts or heartbeats several of the worker's runs in one
   * statement (grouped worker calls; a waiting `start=true` poll starting
   * what it was handed). Each run moves as its own call would; a run not
   * the worker's, in the wrong state or past its deadline stays where it is
   * and is left out of the answer.
   */
  const stepMany = (workerId: string, runIds: ReadonlyArray<string>, step: MovingStep): Effect.Effect<ReadonlyArray<RunRow>> =>
    Effect.flatMap(nowIso, (now) => {
      const update = sql`
        UPDATE runs SET ${stepSet(step, now)}
        WHERE id = ANY(${runIds}::uuid[]) AND worker_id = ${workerId} AND ${stepFrom(step, now)}
          AND deadline_at > ${now}::timestamptz
        RETURNING *`
      // A heartbeat moves no run along its timeline: nothing to record.
      return (step === "heartbeat" ? sql<RunRow>`${update}` : sql<RunRow>`
        WITH moved AS (${update}),
        logged AS (${recordRunEvents(sql, { from: sql`moved`, reason: step === "claim" ? "claimed" : "started", at: now })})
        SELECT * FROM moved`).pipe(Effect.orDie)
    })

  /** The status of each of `runIds` the worker holds, to say why a step left it where it was; others' runs are left out. */
  const statusesOf = (
    workerId: string,
    runIds: ReadonlyArray<string>
  ): Effect.Effect<ReadonlyArray<{ readonly id: string; readonly status: RunStatus }>> =>
    sql<{ id: string; status: RunStatus }>`
        SELECT id, status FROM runs WHERE id = ANY(${runIds}::uuid[]) AND worker_id = ${workerId}`.pipe(Effect.orDie)

  return { claimMany, claimForPush, assignedTo, stepMany, statusesOf } as const
}

/**
 * A run ends: completed by its worker, timed out by the supervisor (one run
 * with its follow-up, or many bare ones grouped), or timed out at once when
 * its worker is revoked. Each is one conditional UPDATE; those with a
 * follow-up go through the terminal statement (`terminalStatement`), their outbox
 * rows leased as `lease` says.
 */
const endings = (sql: SqlClient.SqlClient, clauses: SetClauses, terminal: TerminalStatement) => {
  const { completedSet, timedOutSet, timeoutReason } = clauses

  /**
   * Completes several of the worker's runs in one statement (the batched
   * complete, and grouped single completes). Answers the runs it ended; a
   * run not the worker's, in the wrong state or past its deadline is left out.
   */
  const completeMany = (
    workerId: string,
    items: ReadonlyArray<{ readonly runId: string; readonly completion: Completion }>,
    lease: Lease
  ): Effect.Effect<Ended> =>
    Effect.flatMap(nowIso, (now) => {
      const runIds = items.map((item) => item.runId)
      const column = <A>(f: (c: Completion) => A) => items.map((item) => f(item.completion))
      return terminal(
        sql<RunRow>`
          UPDATE runs SET ${completedSet(now)},
            short_message = i.short_message, error_message = i.error_message, cost_usd = i.cost_usd::numeric,
            output = i.output::jsonb,
            -- A complete after a cancel request is the worker's acknowledgement: cancelled, whatever it reports.
            status = CASE WHEN runs.cancel_requested_at IS NULL THEN i.status ELSE 'cancelled' END,
            fault_class = CASE WHEN runs.cancel_requested_at IS NULL THEN i.fault_class ELSE 'none' END,
            retryable = i.retryable
          FROM unnest(${runIds}::uuid[], ${column((c) => c.status)}::text[], ${column((c) => c.shortMessage)}::text[],
                      ${column((c) => c.errorMessage)}::text[], ${column((c) => c.costUsd)}::text[],
                      ${column((c) => c.faultClass)}::text[], ${column((c) => c.output)}::text[],
                      ${column((c) => c.retryable ?? true)}::bool[])
            AS i(id, status, short_message, error_message, cost_usd, fault_class, output, retryable)
          WHERE runs.id = i.id AND runs.worker_id = ${workerId} AND runs.status IN ('claimed', 'running')
            AND runs.deadline_at > ${now}::timestamptz
          RETURNING runs.*`,
        sql`CASE WHEN status = 'cancelled' THEN 'cancelled' ELSE 'completed' END`,
        now,
        { runIds, ids: runIds.map(() => uuidv7()) },
        lease
      )
    })

  /**
   * Heartbeat or execution deadline passed: `timed_out`, `client` when the
   * run was running past its timeoutSeconds, else `infra` (the worker went
   * silent). Ends nothing when the deadline moved or another instance won.
   * With its follow-up in the same statement (the retry, the webhook);
   * runs with neither end through the lighter `timeOutMany`. `at`: when the
   * supervisor saw the deadline pass (ms), recorded as the run's end; by
   * default the clock's now.
   */
  const timeOut = (runId: string, at: number | undefined, lease: Lease): Effect.Effect<Ended> =>
    Effect.flatMap(at === undefined ? nowIso : Effect.succeed(new Date(at).toISOString()), (now) =>
      terminal(
        sql<RunRow>`
          UPDATE runs SET ${timedOutSet(sql`${now}::timestamptz`)}
          WHERE id = ${runId} AND status IN ('claimed', 'running') AND deadline_at <= ${now}::timestamptz
          RETURNING *`,
        timeoutReason,
        now,
        { runIds: [runId], ids: [uuidv7()] },
        lease
      ))

  /**
   * `timeOut` for runs with no follow-up (no retries left, no webhook, as
   * the caller read from each run's snapshot): the bare UPDATE, for several
   * runs in one statement (many runs time out at once when a fleet of
   * workers goes silent, and the supervisor groups them), each recorded as
   * ended at its own `at` (ms). Answers the runs it ended; a run whose
   * deadline moved or that another instance ended is left out.
   */
  const timeOutMany = (items: ReadonlyArray<{ readonly runId: string; readonly at: number }>): Effect.Effect<ReadonlyArray<RunRow>> =>
    sql<RunRow>`
        WITH done AS (
          UPDATE runs SET ${timedOutSet(sql`i.at`)}
          FROM unnest(${items.map((item) => item.runId)}::uuid[], ${items.map((item) => new Date(item.at).toISOString())}::timestamptz[]) AS i(id, at)
          WHERE runs.id = i.id AND runs.status IN ('claimed', 'running') AND runs.deadline_at <= i.at
          RETURNING runs.*
        ),
        logged AS (${recordRunEvents(sql, { from: sql`done`, reason: timeoutReason, at: sql`done.ended_at` })})
        SELECT * FROM done`.pipe(Effect.orDie)

  /** The ids of the worker's claimed and running runs: what its revocation times out. */
  const heldBy = (workerId: string): Effect.Effect<ReadonlyArray<string>> =>
    Effect.map(
      sql<{ id: string }>`
        SELECT id FROM runs WHERE worker_id = ${workerId} AND ended_at IS NULL AND status IN ('claimed', 'running')`.pipe(
        Effect.orDie
      ),
      (rows) => rows.map((row) => row.id)
    )

  /**
   * The worker was revoked: its claimed and running runs (`runIds`, read
   * by `heldBy`) end `timed_out` with faultClass `infra` at once, with the
   * follow-up of any time-out (the retry when retries are left, the
   * webhook). A run that ended meanwhile is left out.
   */
  const timeOutRevoked = (workerId: string, runIds: ReadonlyArray<string>, lease: Lease): Effect.Effect<Ended> =>
    Effect.flatMap(nowIso, (now) =>
      terminal(
        sql<RunRow>`
          UPDATE runs SET ${timedOutSet(sql`${now}::timestamptz`, "infra")}
          WHERE id = ANY(${runIds}::uuid[]) AND worker_id = ${workerId} AND status IN ('claimed', 'running')
          RETURNING *`,
        "worker_revoked",
        now,
        { runIds, ids: runIds.map(() => uuidv7()) },
        lease
      ))

  return { completeMany, timeOut, timeOutMany, heldBy, timeOutRevoked } as const
}

/**
 * Cancelling a run: ended at once while no worker holds it, else requested
 * (the worker acknowledges by completing it; the deadline moves to the end
 * of the grace period) and answered to the worker's polls.
 */
const cancelRequests = (sql: SqlClient.SqlClient, clauses: SetClauses, terminal: TerminalStatement) => {
  const { cancelGraceSeconds, durationUntil } = clauses

  /**
   * A cancel of a run of `environmentId`, as one conditional UPDATE: queued
   * or assigned, it ends `cancelled` at once (with its webhook, leased as
   * `lease` says); claimed or running, `cancel_requested_at` is set and the
   * deadline brought forward to the end of the grace period (the worker
   * acknowledges by completing it, else the supervisor ends it `cancelled`
   * then). The audit row is written in the same statement. Ends nothing
   * when nothing matched: no such run there, already ended, or a cancel
   * already requested (two cancels, a cancel and a complete: the row lock
   * orders them, and the loser's WHERE no longer holds).
   */
  const cancel = (
    runId: string,
    environmentId: string,
    actor: { readonly type: string; readonly id: string | null },
    lease: Lease,
    bulkActionId?: string | undefined
  ): Effect.Effect<Ended> =>
    Effect.flatMap(nowIso, (now) => {
      const at = sql`${now}::timestamptz`
      const atOnce = sql`status IN ('queued', 'assigned')`
      const bulk = JSON.stringify(bulkActionId === undefined ? {} : { bulkActionId })
      return terminal(
        sql<RunRow>`
          UPDATE runs SET cancel_requested_at = ${at},
            status = CASE WHEN ${atOnce} THEN 'cancelled' ELSE status END,
            ended_at = CASE WHEN ${atOnce} THEN ${at} END,
            duration_ms = CASE WHEN ${atOnce} THEN ${durationUntil(at)} END,
            fault_class = CASE WHEN ${atOnce} THEN 'none' ELSE fault_class END,
            deadline_at = CASE WHEN ${atOnce} THEN NULL
              ELSE LEAST(deadline_at, ${at} + ${cancelGraceSeconds}::int * interval '1 second') END
          WHERE id = ${runId} AND environment_id = ${environmentId} AND ended_at IS NULL AND cancel_requested_at IS NULL
          RETURNING *`,
        // Recorded only when it ends the run: a cancel request moves no status.
        "cancelled",
        now,
        { runIds: [runId], ids: [uuidv7()] },
        lease,
        sql`audited AS (
          INSERT INTO audit_log (id, environment_id, actor_type, actor_id, action, target_type, target_id, metadata)
          SELECT ${uuidv7()}, environment_id, ${actor.type}, ${actor.id}::uuid, ${"run.cancelled" satisfies AuditAction},
            'run', id, jsonb_build_object('ended', ended_at IS NOT NULL) || ${bulk}::jsonb
          FROM done)`
      )
    })

  /** The ids of the worker's runs whose cancel was requested and that have not ended (partial index `runs_cancel_requested`). */
  const cancelRequestedOf = (workerId: string): Effect.Effect<ReadonlyArray<string>> =>
    Effect.map(
      sql<{ id: string }>`
        SELECT id FROM runs WHERE worker_id = ${workerId} AND cancel_requested_at IS NOT NULL AND ended_at IS NULL
        ORDER BY id`.pipe(Effect.orDie),
      (rows) => rows.map((row) => row.id)
    )

  return { cancel, cancelRequestedOf } as const
}

/**
 * Runs waiting for a moment rather than a worker: delayed runs (`delayed`
 * until `available_at`) and runs with a time-to-live (`expires_at`). Each
 * is one conditional statement, so with any number of instances a run is
 * made ready, or expired, exactly once; the next moment anything falls due
 * is one probe of `runs_delayed` and one of `runs_expiring`.
 */
const dueRuns = (sql: SqlClient.SqlClient, clauses: SetClauses, terminal: TerminalStatement, config: TuningShape) => {
  const { durationUntil } = clauses

  /** Delayed runs whose `available_at` has come, made ready for placement; answers them. */
  const promoteDue = (now: string): Effect.Effect<ReadonlyArray<{ readonly id: string; readonly environment_id: string }>> =>
    sql<{ id: string; environment_id: string }>`
      UPDATE runs SET delayed = false
      WHERE id IN (
        SELECT id FROM runs WHERE delayed AND ended_at IS NULL AND available_at <= ${now}::timestamptz
        ORDER BY available_at LIMIT ${config.batchSize}
      ) AND delayed AND ended_at IS NULL
      RETURNING id, environment_id`.pipe(Effect.orDie)

  /**
   * Runs not claimed by their `expires_at` (queued or assigned) end
   * `expired` at that moment (faultClass `none`), with their webhook; never
   * retried. At most `batchSize` at a time, oldest deadline first.
   */
  const expireDue = (now: string, lease: Lease): Effect.Effect<Ended> =>
    Effect.suspend(() => {
      // The terminal statement pairs retry ids with run ids; an expired run has no retry.
      const none: ReadonlyArray<string> = []
      return terminal(
        sql<RunRow>`
          UPDATE runs SET status = 'expired', ended_at = expires_at, duration_ms = ${durationUntil(sql`expires_at`)},
            fault_class = 'none', deadline_at = NULL, delayed = false
          WHERE id IN (
            SELECT id FROM runs
            WHERE expires_at <= ${now}::timestamptz AND ended_at IS NULL AND status IN ('queued', 'assigned')
            ORDER BY expires_at LIMIT ${config.batchSize}
            FOR UPDATE SKIP LOCKED
          ) AND status IN ('queued', 'assigned') AND expires_at <= ${now}::timestamptz
          RETURNING *`,
        "expired",
        now,
        { runIds: none, ids: none },
        lease
      )
    })

  /** The next moment a delayed run becomes ready or an unclaimed run expires; undefined: none waits. */
  const nextDue: Effect.Effect<Date | undefined> = Effect.map(
    sql<{ at: Date | null }>`
      SELECT LEAST(
        (SELECT min(available_at) FROM runs WHERE delayed AND ended_at IS NULL),
        (SELECT expires_at FROM runs WHERE expires_at IS NOT NULL AND ended_at IS NULL AND status IN ('queued', 'assigned')
         ORDER BY expires_at LIMIT 1)
      ) AS at`.pipe(Effect.orDie),
    ([row]) => row?.at === null || row?.at === undefined ? undefined : new Date(row.at)
  )

  /**
   * Moves a run not placed yet (queued, no worker) of `environmentId` to
   * `availableAt` (ISO): its queue rank and time-to-live move with it; audited
   * as `run.rescheduled`. Answers the run, or nothing when it is not there,
   * placed or ended.
   */
  const reschedule = (
    runId: string,
    environmentId: string,
    availableAt: string,
    actor: { readonly type: string; readonly id: string | null }
  ): Effect.Effect<ReadonlyArray<RunRow>> =>
    Effect.flatMap(nowIso, (now) =>
      sql<RunRow>`
        WITH moved AS (
          UPDATE runs SET available_at = ${availableAt}::timestamptz,
            delayed = ${availableAt}::timestamptz > ${now}::timestamptz,
            queue_at = ${availableAt}::timestamptz - priority * interval '1 second',
            expires_at = ${availableAt}::timestamptz + ttl_seconds * interval '1 second'
          WHERE id = ${runId} AND environment_id = ${environmentId}
            AND status = 'queued' AND worker_id IS NULL AND ended_at IS NULL
          RETURNING *
        ), audited AS (
          INSERT INTO audit_log (id, environment_id, actor_type, actor_id, action, target_type, target_id, metadata)
          SELECT ${uuidv7()}, environment_id, ${actor.type}, ${actor.id}::uuid, ${"run.rescheduled" satisfies AuditAction},
            'run', id, jsonb_build_object('availableAt', ${availableAt}::text)
          FROM moved
        )
        SELECT * FROM moved`.pipe(Effect.orDie))

  return { promoteDue, expireDue, nextDue, reschedule } as const
}

/**
 * Deadlines that passed while the service was away. No instance was there to
 * take a heartbeat, so a passed deadline says nothing about the worker: each
 * such run gets one window from `now` (its heartbeat timeout; the claim
 * timeout for a run still `assigned`), enough for a live worker's next call.
 */
const restartGrace = (sql: SqlClient.SqlClient, config: Pick<TuningShape, "claimTimeoutSeconds">) => {
  /**
   * Moves every active run's deadline that fell in (`since`, `now`] to `now`
   * plus its window, in one conditional UPDATE; `since` undefined: every
   * deadline up to `now` (no record of when the service was last alive).
   * Answers how many runs it moved.
   */
  const graceDeadlines = (since: string | undefined, now: string): Effect.Effect<number> =>
    Effect.map(
      sql<{ id: string }>`
        UPDATE runs SET deadline_at = ${now}::timestamptz + CASE WHEN status = 'assigned'
            THEN ${config.claimTimeoutSeconds}::int ELSE heartbeat_timeout_seconds END * interval '1 second'
        WHERE ended_at IS NULL AND status IN ('assigned', 'claimed', 'running')
          AND deadline_at <= ${now}::timestamptz
          ${since === undefined ? sql`` : sql`AND deadline_at > ${since}::timestamptz`}
        RETURNING id`.pipe(Effect.orDie),
      (rows) => rows.length
    )

  return { graceDeadlines } as const
}

/** The run store's statements over the `SqlClient` in context, with the scheduler's `Tuning`. */
export const make: Effect.Effect<RunStore.Service, never, SqlClient.SqlClient | Tuning> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const tuning = yield* Tuning
  const clauses = setClauses(sql, tuning.cancelGraceSeconds)
  const terminal = terminalStatement(sql)
  return RunStore.of({
    ...creation(sql),
    ...assignment(sql, tuning),
    ...releases(sql, tuning),
    ...steps(sql, clauses),
    ...endings(sql, clauses, terminal),
    ...cancelRequests(sql, clauses, terminal),
    ...dueRuns(sql, clauses, terminal, tuning),
    ...restartGrace(sql, tuning)
  })
})

/** `RunStore` over the `SqlClient` in context (one instance per app, which a test may wrap). */
export const layer: Layer.Layer<RunStore, never, SqlClient.SqlClient | Tuning> = Layer.effect(RunStore, make)
