import * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import type { AuditAction } from "../Audit/AuditLog.js"
import { uuidv7 } from "../Crypto/Ids.js"
import type { FaultClass, PolledRow, RunRow, RunStatus } from "../Runs/Run.js"
import { toRun } from "../Runs/Run.js"
import { outboxChannel, type Slot, TerminalHandoff } from "./TerminalHandoff.js"
import { RunEvents } from "./RunEvents.js"
import { RunFeed } from "./RunFeed.js"
import { Tuning } from "../Config/Tuning.js"
import { recordRunEvents, type RunEventReason } from "../Runs/RunTimeline.js"
import { RunNotFound, type RunRejection, RunStateConflict, type WorkerStep } from "./RunRejection.js"
import { nowIso } from "./Time.js"
import { hotSpan } from "../Config/Tracing.js"
import * as Metrics from "../Observability/Metrics.js"

export interface Completion {
  readonly status: "succeeded" | "failed"
  readonly shortMessage: string | null
  readonly errorMessage: string | null
  readonly costUsd: string | null
  readonly faultClass: FaultClass
}

/** The outcome of a terminal transition: the ended run and the retry it spawned, if any. */
export interface Terminal {
  readonly run: RunRow
  readonly retry: RunRow | undefined
}

const withoutExtras = ({ handed: _h, kind: _k, ...row }: RunRow & { readonly kind: string; readonly handed: boolean }): RunRow => row

/** Dispatch latency (request to claim) of runs just claimed. */
const dispatched = (rows: ReadonlyArray<RunRow>): void => {
  for (const row of rows) {
    if (row.claimed_at !== null) {
      Metrics.record.dispatched(row.environment_id, new Date(row.claimed_at).getTime() - new Date(row.created_at).getTime())
    }
  }
}

/**
 * The run state machine after assignment. Every transition is one conditional
 * UPDATE ... RETURNING: the row count decides, so a transition from the wrong
 * state changes nothing, and with two instances each happens exactly once.
 * A deadline that has passed counts as a wrong state: the supervisor is about
 * to time the run out, and a late heartbeat must not resurrect it.
 */
export class Transitions extends Effect.Service<Transitions>()("Scheduler/Transitions", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const events = yield* RunEvents
    const feed = yield* RunFeed
    // Live subscribers of the runs' environments look at the new timeline rows now.
    const announced = (rows: ReadonlyArray<{ readonly environment_id: string }>) =>
      rows.length === 0 ? Effect.void : feed.announce(new Set(rows.map((row) => row.environment_id)))
    const { cancelGraceSeconds } = yield* Tuning
    // This instance's delivery loop, or the port's `none` (see `TerminalHandoff`).
    const handoff = yield* TerminalHandoff

    /** Why each of the worker's runs matched no row: not its run, or the wrong state for the step. */
    const rejections = (workerId: string, runIds: ReadonlyArray<string>, step: WorkerStep) =>
      Effect.map(
        sql<{ id: string; status: RunStatus }>`
          SELECT id, status FROM runs WHERE id = ANY(${runIds}::uuid[]) AND worker_id = ${workerId}`.pipe(Effect.orDie),
        (rows): ReadonlyArray<RunRejection> => {
          const status = new Map(rows.map((row) => [row.id, row.status]))
          return runIds.map((runId) => {
            const now = status.get(runId)
            return now === undefined ? new RunNotFound({ runId }) : new RunStateConflict({ runId, step, status: now })
          })
        }
      )

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

    /**
     * Claims up to `max` of the worker's assigned runs in one statement (poll
     * with `claim=true`); with `start`, they are started in the same statement
     * (`&start=true`: claimed → running at once, the execution deadline set).
     */
    const claimMany = (workerId: string, max: number, start = false): Effect.Effect<ReadonlyArray<PolledRow>> =>
      Effect.flatMap(nowIso, (now) =>
        sql<PolledRow>`
          WITH picked AS MATERIALIZED (
            SELECT id FROM runs
            WHERE worker_id = ${workerId} AND ended_at IS NULL AND status = 'assigned' AND deadline_at > ${now}::timestamptz
            ORDER BY id LIMIT ${max} FOR UPDATE SKIP LOCKED
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
        })
          SELECT c.*, t.name AS trigger_name, t.input AS trigger_input
          FROM claimed c JOIN triggers t ON t.id = c.trigger_id ORDER BY c.id`).pipe(
        Effect.orDie,
        Effect.tap((rows) => dispatched(rows)),
        Effect.tap(announced),
        hotSpan("Transitions.claimMany")
      )

    /** The worker's assigned, not yet claimed runs (what a poll hands out). */
    const assignedTo = (workerId: string, max: number): Effect.Effect<ReadonlyArray<PolledRow>> =>
      Effect.flatMap(nowIso, (now) =>
        sql<PolledRow>`
          SELECT r.*, t.name AS trigger_name, t.input AS trigger_input
          FROM runs r JOIN triggers t ON t.id = r.trigger_id
          WHERE r.worker_id = ${workerId} AND r.ended_at IS NULL AND r.status = 'assigned' AND r.deadline_at > ${now}::timestamptz
          ORDER BY r.id LIMIT ${max}`).pipe(Effect.orDie)

    // What each non-terminal step sets, and the states it moves a run from.
    const stepSet = (step: Exclude<WorkerStep, "complete">, now: string) => {
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
    const stepFrom = (step: Exclude<WorkerStep, "complete">) => {
      switch (step) {
        case "claim":
          return sql`status = 'assigned'`
        case "start":
          return sql`status = 'claimed'`
        case "heartbeat":
          return sql`status IN ('claimed', 'running')`
      }
    }

    /**
     * Claims, starts or heartbeats several of the worker's runs in one
     * statement (grouped worker calls; a waiting `start=true` poll starting
     * what it was handed). Each run moves as its own call would; for each run
     * it could not move, why: not the worker's (`RunNotFound`) or the wrong
     * state or a passed deadline (`RunStateConflict`).
     */
    const stepMany = (
      workerId: string,
      runIds: ReadonlyArray<string>,
      step: Exclude<WorkerStep, "complete">
    ): Effect.Effect<{ readonly moved: ReadonlyArray<RunRow>; readonly rejected: ReadonlyArray<RunRejection> }> =>
      Effect.gen(function*() {
        const now = yield* nowIso
        const update = sql`
          UPDATE runs SET ${stepSet(step, now)}
          WHERE id = ANY(${runIds}::uuid[]) AND worker_id = ${workerId} AND ${stepFrom(step)}
            AND deadline_at > ${now}::timestamptz
          RETURNING *`
        // A heartbeat moves no run along its timeline: nothing to record.
        const moved = yield* (step === "heartbeat" ? sql<RunRow>`${update}` : sql<RunRow>`
          WITH moved AS (${update}),
          logged AS (${recordRunEvents(sql, { from: sql`moved`, reason: step === "claim" ? "claimed" : "started", at: now })})
          SELECT * FROM moved`).pipe(Effect.orDie)
        if (step === "claim") dispatched(moved)
        if (step !== "heartbeat") yield* announced(moved)
        const done = new Set(moved.map((row) => row.id))
        const missing = runIds.filter((id) => !done.has(id))
        const rejected = missing.length === 0 ? [] : yield* rejections(workerId, missing, step)
        return { moved, rejected }
      }).pipe(hotSpan("Transitions.stepMany"))

    /**
     * Places in this instance's delivery loop for `n` webhooks (see
     * `TerminalHandoff`): all of them, or none (then every row of the
     * statement takes the NOTIFY path). None inside a transaction: a row
     * would be handed before it commits.
     */
    const reserveSlots = (n: number): Effect.Effect<ReadonlyArray<Slot>> =>
      Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (transaction) => {
        if (Option.isSome(transaction)) return Effect.succeed([])
        const slots: Array<Slot> = []
        for (let i = 0; i < n; i++) {
          const slot = handoff.reserve()
          // Not enough room: give back what was taken.
          if (slot === undefined) return Effect.as(Effect.forEach(slots, (taken) => taken.cancel, { discard: true }), [])
          slots.push(slot)
        }
        return Effect.succeed(slots)
      })

    /**
     * Terminal transitions as ONE statement, so they need no transaction of
     * their own: the conditional UPDATE (`done`, any number of runs), then,
     * from its result, each run's retry (same snapshot, attempt + 1, the id
     * given in `retryIds`) when it failed or timed out with retries left, and
     * its webhook outbox row. The outbox row carries no body: it is rendered
     * from the terminal run when it is delivered.
     * With places in this instance's delivery loop (`TerminalHandoff`), the
     * rows are inserted leased to the loop and handed to it after the
     * statement; otherwise they are inserted free and announced with NOTIFY
     * (delivered at commit, so the row is visible by then) for any instance
     * to lease. Runs the UPDATE did not match are not in the answer; a run
     * it matched without ending it (a cancel request) gets neither a retry
     * nor a webhook. A cancelled run is never retried.
     */
    const terminal = (
      update: Statement.Statement<RunRow>,
      reason: RunEventReason | Statement.Fragment,
      now: string,
      retryIds: { readonly runIds: ReadonlyArray<string>; readonly ids: ReadonlyArray<string> },
      // One more data-modifying CTE over `done` (an audit row), written in the same statement.
      also?: Statement.Fragment
    ): Effect.Effect<ReadonlyArray<Terminal>> =>
      Effect.uninterruptible(Effect.flatMap(reserveSlots(retryIds.runIds.length), (slots) => {
        const owner = slots[0]?.owner ?? null
        return sql<RunRow & { readonly kind: "run" | "retry"; readonly handed: boolean }>`
          WITH done AS (${update}),
          retry AS (
            INSERT INTO runs (id, trigger_id, environment_id, status, attempt, retry_of_run_id, input,
              timeout_seconds, heartbeat_timeout_seconds, max_retries, webhook_url, webhook_secret_enc, created_at)
            SELECT r.retry_id, trigger_id, environment_id, 'queued', attempt + 1, done.id, input,
              timeout_seconds, heartbeat_timeout_seconds, max_retries, webhook_url, webhook_secret_enc, ${now}::timestamptz
            FROM done JOIN unnest(${retryIds.runIds}::uuid[], ${retryIds.ids}::uuid[]) AS r(run_id, retry_id) ON r.run_id = done.id
            WHERE done.status IN ('failed', 'timed_out') AND done.attempt <= done.max_retries
            RETURNING *
          ),
          logged AS (${recordRunEvents(sql, { from: sql`done`, reason, at: sql`done.ended_at`, where: sql`done.ended_at IS NOT NULL` })}),
          logged_retry AS (${recordRunEvents(sql, { from: sql`retry`, reason: "requested", at: now })}),
          queued AS (
            INSERT INTO webhook_outbox (run_id, trigger_id, url, secret_enc, lease_owner, lease_until)
            SELECT id, trigger_id, webhook_url, webhook_secret_enc, ${owner}::text,
              CASE WHEN ${owner}::text IS NULL THEN NULL
                ELSE now() + ${slots[0]?.leaseMillis ?? 0}::int * interval '1 millisecond' END
            FROM done WHERE webhook_url IS NOT NULL AND ended_at IS NOT NULL
            ON CONFLICT (run_id) DO NOTHING
            RETURNING run_id, lease_owner IS NOT NULL AS handed,
              CASE WHEN lease_owner IS NULL THEN pg_notify(${outboxChannel}, run_id::text) END AS notified
          )${also === undefined ? sql`` : sql`, ${also}`}
          SELECT 'run' AS kind, EXISTS (SELECT 1 FROM queued q WHERE q.run_id = done.id AND q.handed) AS handed, * FROM done
          UNION ALL SELECT 'retry' AS kind, false AS handed, * FROM retry`.pipe(
          Effect.orDie,
          Effect.onExit((exit) => {
            if (slots.length === 0) return Effect.void
            const handed = Exit.isSuccess(exit) ? exit.value.filter((row) => row.kind === "run" && row.handed) : []
            return Effect.all([
              ...handed.map((row, i) => slots[i]!.hand(withoutExtras(row))),
              ...slots.slice(handed.length).map((slot) => slot.cancel)
            ], { discard: true })
          }),
          Effect.map((rows) => {
            const retries = new Map(rows.flatMap((r) => r.kind === "retry" ? [[r.retry_of_run_id, withoutExtras(r)] as const] : []))
            return rows.flatMap((r) => r.kind === "run" ? [{ run: withoutExtras(r), retry: retries.get(r.id) }] : [])
          })
        )
      }))

    const published = (terminal: Terminal | undefined) =>
      terminal === undefined || terminal.run.ended_at === null ? Effect.void : events.publish(toRun(terminal.run))

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

    /**
     * Completes several of the worker's runs in one statement (the batched
     * complete, and grouped single completes). Answers the runs it ended and, for each run it could not,
     * why: not the worker's (`RunNotFound`) or the wrong state (`RunStateConflict`), as `complete`.
     */
    const completeMany = (
      workerId: string,
      items: ReadonlyArray<{ readonly runId: string; readonly completion: Completion }>
    ): Effect.Effect<{ readonly ended: ReadonlyArray<Terminal>; readonly rejected: ReadonlyArray<RunRejection> }> =>
      Effect.gen(function*() {
        const now = yield* nowIso
        const runIds = items.map((item) => item.runId)
        const column = <A>(f: (c: Completion) => A) => items.map((item) => f(item.completion))
        const ended = yield* terminal(
          sql<RunRow>`
            UPDATE runs SET ${completedSet(now)},
              short_message = i.short_message, error_message = i.error_message, cost_usd = i.cost_usd::numeric,
              -- A complete after a cancel request is the worker's acknowledgement: cancelled, whatever it reports.
              status = CASE WHEN runs.cancel_requested_at IS NULL THEN i.status ELSE 'cancelled' END,
              fault_class = CASE WHEN runs.cancel_requested_at IS NULL THEN i.fault_class ELSE 'none' END
            FROM unnest(${runIds}::uuid[], ${column((c) => c.status)}::text[], ${column((c) => c.shortMessage)}::text[],
                        ${column((c) => c.errorMessage)}::text[], ${column((c) => c.costUsd)}::text[],
                        ${column((c) => c.faultClass)}::text[])
              AS i(id, status, short_message, error_message, cost_usd, fault_class)
            WHERE runs.id = i.id AND runs.worker_id = ${workerId} AND runs.status IN ('claimed', 'running')
              AND runs.deadline_at > ${now}::timestamptz
            RETURNING runs.*`,
          sql`CASE WHEN status = 'cancelled' THEN 'cancelled' ELSE 'completed' END`,
          now,
          { runIds, ids: runIds.map(() => uuidv7()) }
        )
        yield* Effect.forEach(ended, published, { discard: true })
        yield* announced(ended.map((t) => t.run))
        const done = new Set(ended.map((t) => t.run.id))
        const missing = runIds.filter((id) => !done.has(id))
        const rejected = missing.length === 0 ? [] : yield* rejections(workerId, missing, "complete")
        return { ended, rejected }
      }).pipe(hotSpan("Transitions.completeMany"))

    /**
     * Heartbeat or execution deadline passed: `timed_out`, `client` when the
     * run was running past its timeoutSeconds, else `infra` (the worker went
     * silent). Undefined when the deadline moved or another instance won.
     * With its follow-up in the same statement (the retry, the webhook);
     * runs with neither end through the lighter `timeOutMany`. `at`: when the
     * supervisor saw the deadline pass (ms), recorded as the run's end; by
     * default the clock's now.
     */
    const timeOut = (runId: string, at?: number): Effect.Effect<Terminal | undefined> =>
      Effect.gen(function*() {
        const now = at === undefined ? yield* nowIso : new Date(at).toISOString()
        const [ended] = yield* terminal(
          sql<RunRow>`
            UPDATE runs SET ${timedOutSet(sql`${now}::timestamptz`)}
            WHERE id = ${runId} AND status IN ('claimed', 'running') AND deadline_at <= ${now}::timestamptz
            RETURNING *`,
          timeoutReason,
          now,
          { runIds: [runId], ids: [uuidv7()] }
        )
        yield* published(ended)
        if (ended !== undefined) yield* announced([ended.run])
        return ended
      }).pipe(hotSpan("Transitions.timeOut", { runId }))

    /**
     * `timeOut` for runs with no follow-up (no retries left, no webhook, as
     * the caller read from each run's snapshot): the bare UPDATE, for several
     * runs in one statement (many runs time out at once when a fleet of
     * workers goes silent, and the supervisor groups them), each recorded as
     * ended at its own `at` (ms). Answers the runs it ended; a run whose
     * deadline moved or that another instance ended is left out.
     */
    const timeOutMany = (items: ReadonlyArray<{ readonly runId: string; readonly at: number }>): Effect.Effect<ReadonlyArray<RunRow>> =>
      Effect.gen(function*() {
        const ended = yield* sql<RunRow>`
          WITH done AS (
            UPDATE runs SET ${timedOutSet(sql`i.at`)}
            FROM unnest(${items.map((item) => item.runId)}::uuid[], ${items.map((item) => new Date(item.at).toISOString())}::timestamptz[]) AS i(id, at)
            WHERE runs.id = i.id AND runs.status IN ('claimed', 'running') AND runs.deadline_at <= i.at
            RETURNING runs.*
          ),
          logged AS (${recordRunEvents(sql, { from: sql`done`, reason: timeoutReason, at: sql`done.ended_at` })})
          SELECT * FROM done`.pipe(Effect.orDie)
        yield* Effect.forEach(ended, (run) => events.publish(toRun(run)), { discard: true })
        yield* announced(ended)
        return ended
      }).pipe(hotSpan("Transitions.timeOutMany"))

    /**
     * A cancel of a run of `environmentId`, as one conditional UPDATE: queued
     * or assigned, it ends `cancelled` at once (with its webhook); claimed or
     * running, `cancel_requested_at` is set and the deadline brought forward
     * to the end of the grace period (the worker acknowledges by completing
     * it, else the supervisor ends it `cancelled` then). The audit row is
     * written in the same statement. Undefined when nothing matched: no such
     * run there, already ended, or a cancel already requested (two cancels,
     * a cancel and a complete: the row lock orders them, and the loser's
     * WHERE no longer holds).
     */
    const cancel = (
      runId: string,
      environmentId: string,
      actor: { readonly type: string; readonly id: string | null }
    ): Effect.Effect<Terminal | undefined> =>
      Effect.gen(function*() {
        const now = yield* nowIso
        const at = sql`${now}::timestamptz`
        const atOnce = sql`status IN ('queued', 'assigned')`
        const [changed] = yield* terminal(
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
          sql`audited AS (
            INSERT INTO audit_log (id, environment_id, actor_type, actor_id, action, target_type, target_id, metadata)
            SELECT ${uuidv7()}, environment_id, ${actor.type}, ${actor.id}::uuid, ${"run.cancelled" satisfies AuditAction},
              'run', id, jsonb_build_object('ended', ended_at IS NOT NULL)
            FROM done)`
        )
        yield* published(changed)
        return changed
      }).pipe(Effect.withSpan("Transitions.cancel", { attributes: { runId } }))

    /** The ids of the worker's runs whose cancel was requested and that have not ended (partial index `runs_cancel_requested`). */
    const cancelRequestedOf = (workerId: string): Effect.Effect<ReadonlyArray<string>> =>
      Effect.map(
        sql<{ id: string }>`
          SELECT id FROM runs WHERE worker_id = ${workerId} AND cancel_requested_at IS NOT NULL AND ended_at IS NULL
          ORDER BY id`.pipe(Effect.orDie),
        (rows) => rows.map((row) => row.id)
      )

    /**
     * The worker was revoked: its claimed and running runs end `timed_out`
     * with faultClass `infra` at once, with the follow-up of any time-out
     * (the retry when retries are left, the webhook). A run that ended
     * meanwhile is left out. Answers the runs it ended.
     */
    const timeOutRevoked = (workerId: string): Effect.Effect<ReadonlyArray<Terminal>> =>
      Effect.gen(function*() {
        const held = yield* sql<{ id: string }>`
          SELECT id FROM runs WHERE worker_id = ${workerId} AND ended_at IS NULL AND status IN ('claimed', 'running')`.pipe(
          Effect.orDie
        )
        if (held.length === 0) return []
        const runIds = held.map((row) => row.id)
        const now = yield* nowIso
        const ended = yield* terminal(
          sql<RunRow>`
            UPDATE runs SET ${timedOutSet(sql`${now}::timestamptz`, "infra")}
            WHERE id = ANY(${runIds}::uuid[]) AND worker_id = ${workerId} AND status IN ('claimed', 'running')
            RETURNING *`,
          "worker_revoked",
          now,
          { runIds, ids: runIds.map(() => uuidv7()) }
        )
        yield* Effect.forEach(ended, published, { discard: true })
        return ended
      }).pipe(Effect.withSpan("Transitions.timeOutRevoked", { attributes: { workerId } }))

    return { claimMany, stepMany, assignedTo, completeMany, timeOut, timeOutMany, timeOutRevoked, cancel, cancelRequestedOf } as const
  })
}) {}
