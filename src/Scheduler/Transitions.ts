import * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import { uuidv7 } from "../Crypto/Ids.js"
import { Conflict, NotFound } from "../Domain/Errors.js"
import type { FaultClass, RunRow, RunStatus } from "../Runs/Run.js"
import { toRun } from "../Runs/Run.js"
import type { OutboxRow } from "../Webhooks/DeliveriesRepo.js"
import { DeliveryHandoff } from "../Webhooks/Handoff.js"
import { outboxChannel } from "../Webhooks/Outbox.js"
import { payloadOf, type TerminalRun } from "../Webhooks/Payload.js"
import { RunEvents } from "./RunEvents.js"
import { nowIso } from "./Time.js"
import { hotSpan } from "../Config/Tracing.js"

/** A polled run with the summary of its trigger the worker needs. */
export interface PolledRow extends RunRow {
  readonly trigger_name: string
  readonly trigger_input: unknown
}

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

/** The outbox row a terminal run's webhook is handed over as (see `Webhooks/Handoff`). */
const outboxRowOf = (run: RunRow): OutboxRow => ({
  run_id: run.id,
  trigger_id: run.trigger_id,
  url: run.webhook_url ?? "",
  secret_enc: run.webhook_secret_enc,
  payload: payloadOf({ ...run, status: run.status as TerminalRun["status"] }),
  attempts: 0,
  last_status_code: null,
  last_response_body: null,
  last_error: null
})

type WorkerStep = "claim" | "start" | "heartbeat" | "complete"

const durationMs = (now: string) => (sql: SqlClient.SqlClient) =>
  sql`GREATEST(0, round(EXTRACT(EPOCH FROM (${now}::timestamptz - COALESCE(started_at, claimed_at, created_at))) * 1000))::bigint`

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
    // This instance's delivery loop, when the app runs one (see `Webhooks/Handoff`).
    const handoff = Option.getOrUndefined(yield* Effect.serviceOption(DeliveryHandoff))

    /** Why a worker's transition matched no row: not its run (404) or the wrong state (409). */
    const rejection = (workerId: string, runId: string, step: WorkerStep) =>
      Effect.gen(function*() {
        const rows = yield* sql<{ status: RunStatus }>`
          SELECT status FROM runs WHERE id = ${runId} AND worker_id = ${workerId}`.pipe(Effect.orDie)
        const row = rows[0]
        if (row === undefined) return yield* Effect.fail(NotFound.of("run"))
        const active = row.status === "assigned" || row.status === "claimed" || row.status === "running"
        const why = active ? `deadline passed or cannot ${step} a ${row.status} run` : `run is ${row.status}`
        return yield* Effect.fail(new Conflict({ error: `cannot ${step}: ${why}` }))
      })

    const expect = (workerId: string, runId: string, step: WorkerStep) => (rows: ReadonlyArray<RunRow>) =>
      rows[0] !== undefined ? Effect.succeed(rows[0]) : rejection(workerId, runId, step)

    // The columns claiming and starting set (shared by the single and batched forms).
    const claimedSet = (now: string) =>
      sql`status = 'claimed', deadline_at = ${now}::timestamptz + heartbeat_timeout_seconds * interval '1 second'`
    const startedSet = (now: string) =>
      sql`status = 'running', started_at = ${now}::timestamptz,
        deadline_at = ${now}::timestamptz + LEAST(heartbeat_timeout_seconds, timeout_seconds) * interval '1 second'`

    const claim = (workerId: string, runId: string): Effect.Effect<RunRow, NotFound | Conflict> =>
      Effect.flatMap(nowIso, (now) =>
        sql<RunRow>`
          UPDATE runs SET claimed_at = ${now}::timestamptz, ${claimedSet(now)}
          WHERE id = ${runId} AND worker_id = ${workerId} AND status = 'assigned' AND deadline_at > ${now}::timestamptz
          RETURNING *`).pipe(Effect.orDie, Effect.flatMap(expect(workerId, runId, "claim")), hotSpan("Transitions.claim"))

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
            RETURNING runs.*)
          SELECT c.*, t.name AS trigger_name, t.input AS trigger_input
          FROM claimed c JOIN triggers t ON t.id = c.trigger_id ORDER BY c.id`).pipe(
        Effect.orDie,
        hotSpan("Transitions.claimMany")
      )

    /**
     * Starts the worker's claimed runs among `runIds` in one statement: the
     * runs a waiting `claim=true&start=true` poll was handed (run creation
     * claims them; starting is the poll's part). Runs no longer claimed (the
     * deadline passed) are left out.
     */
    const startMany = (workerId: string, runIds: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<RunRow>> =>
      Effect.flatMap(nowIso, (now) =>
        sql<RunRow>`
          UPDATE runs SET ${startedSet(now)}
          WHERE id = ANY(${runIds}::uuid[]) AND worker_id = ${workerId} AND status = 'claimed' AND deadline_at > ${now}::timestamptz
          RETURNING *`).pipe(Effect.orDie, hotSpan("Transitions.startMany"))

    /** The worker's assigned, not yet claimed runs (what a poll hands out). */
    const assignedTo = (workerId: string, max: number): Effect.Effect<ReadonlyArray<PolledRow>> =>
      Effect.flatMap(nowIso, (now) =>
        sql<PolledRow>`
          SELECT r.*, t.name AS trigger_name, t.input AS trigger_input
          FROM runs r JOIN triggers t ON t.id = r.trigger_id
          WHERE r.worker_id = ${workerId} AND r.ended_at IS NULL AND r.status = 'assigned' AND r.deadline_at > ${now}::timestamptz
          ORDER BY r.id LIMIT ${max}`).pipe(Effect.orDie)

    const start = (workerId: string, runId: string): Effect.Effect<RunRow, NotFound | Conflict> =>
      Effect.flatMap(nowIso, (now) =>
        sql<RunRow>`
          UPDATE runs SET ${startedSet(now)}
          WHERE id = ${runId} AND worker_id = ${workerId} AND status = 'claimed' AND deadline_at > ${now}::timestamptz
          RETURNING *`).pipe(Effect.orDie, Effect.flatMap(expect(workerId, runId, "start")), hotSpan("Transitions.start"))

    // The execution deadline (started_at + timeout) caps every heartbeat, so a
    // chatty worker cannot run past timeoutSeconds.
    const heartbeat = (workerId: string, runId: string): Effect.Effect<RunRow, NotFound | Conflict> =>
      Effect.flatMap(nowIso, (now) =>
        sql<RunRow>`
          UPDATE runs SET last_heartbeat_at = ${now}::timestamptz,
            deadline_at = CASE WHEN status = 'running'
              THEN LEAST(${now}::timestamptz + heartbeat_timeout_seconds * interval '1 second',
                         started_at + timeout_seconds * interval '1 second')
              ELSE ${now}::timestamptz + heartbeat_timeout_seconds * interval '1 second' END
          WHERE id = ${runId} AND worker_id = ${workerId} AND status IN ('claimed', 'running')
            AND deadline_at > ${now}::timestamptz
          RETURNING *`).pipe(Effect.orDie, Effect.flatMap(expect(workerId, runId, "heartbeat")), hotSpan("Transitions.heartbeat"))

    /**
     * A terminal transition as ONE statement, so it needs no transaction of
     * its own: the conditional UPDATE (`done`), then, from its result, the
     * retry run (same snapshot, attempt + 1) when the run failed or timed out
     * with retries left, and the webhook outbox row. The outbox row carries no
     * body: it is rendered from the terminal run when it is delivered.
     * With a place in this instance's delivery loop (`Webhooks/Handoff`), the
     * row is inserted leased to the loop and handed to it after the statement;
     * otherwise it is inserted free and announced with NOTIFY (delivered at
     * commit, so the row is visible by then) for any instance to lease.
     * No row back: the UPDATE matched nothing.
     */
    const terminal = (update: Statement.Statement<RunRow>, now: string): Effect.Effect<Terminal | undefined> =>
      Effect.uninterruptible(Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (transaction) => {
        // Inside a transaction the row would be handed before it commits.
        const slot = Option.isNone(transaction) ? handoff?.reserve() : undefined
        const owner = slot?.owner ?? null
        return sql<RunRow & { readonly kind: "run" | "retry"; readonly handed: boolean }>`
          WITH done AS (${update}),
          retry AS (
            INSERT INTO runs (id, trigger_id, environment_id, status, attempt, retry_of_run_id, input,
              timeout_seconds, heartbeat_timeout_seconds, max_retries, webhook_url, webhook_secret_enc, created_at)
            SELECT ${uuidv7()}, trigger_id, environment_id, 'queued', attempt + 1, id, input,
              timeout_seconds, heartbeat_timeout_seconds, max_retries, webhook_url, webhook_secret_enc, ${now}::timestamptz
            FROM done WHERE done.status <> 'succeeded' AND done.attempt <= done.max_retries
            RETURNING *
          ),
          queued AS (
            INSERT INTO webhook_outbox (run_id, trigger_id, url, secret_enc, lease_owner, lease_until)
            SELECT id, trigger_id, webhook_url, webhook_secret_enc, ${owner}::text,
              CASE WHEN ${owner}::text IS NULL THEN NULL
                ELSE now() + ${slot?.leaseMillis ?? 0}::int * interval '1 millisecond' END
            FROM done WHERE webhook_url IS NOT NULL
            ON CONFLICT (run_id) DO NOTHING
            RETURNING lease_owner IS NOT NULL AS handed,
              CASE WHEN lease_owner IS NULL THEN pg_notify(${outboxChannel}, run_id::text) END AS notified
          )
          SELECT 'run' AS kind, EXISTS (SELECT 1 FROM queued WHERE handed) AS handed, * FROM done
          UNION ALL SELECT 'retry' AS kind, false AS handed, * FROM retry`.pipe(
          Effect.orDie,
          Effect.map((rows) => {
            const run = rows.find((r) => r.kind === "run")
            if (run === undefined) return undefined
            const retry = rows.find((r) => r.kind === "retry")
            return { run: withoutExtras(run), retry: retry === undefined ? undefined : withoutExtras(retry), handed: run.handed }
          }),
          Effect.onExit((exit) => {
            if (slot === undefined) return Effect.void
            return Exit.isSuccess(exit) && exit.value?.handed === true ? slot.hand(outboxRowOf(exit.value.run)) : slot.cancel
          }),
          Effect.map((ended): Terminal | undefined => ended === undefined ? undefined : { run: ended.run, retry: ended.retry })
        )
      }))

    const published = (terminal: Terminal | undefined) =>
      terminal === undefined ? Effect.void : events.publish(toRun(terminal.run))

    const complete = (workerId: string, runId: string, completion: Completion): Effect.Effect<Terminal, NotFound | Conflict> =>
      Effect.gen(function*() {
        const now = yield* nowIso
        const ended = yield* terminal(
          sql<RunRow>`
            UPDATE runs SET status = ${completion.status}, ended_at = ${now}::timestamptz,
              duration_ms = ${durationMs(now)(sql)},
              short_message = ${completion.shortMessage}, error_message = ${completion.errorMessage},
              cost_usd = ${completion.costUsd}::numeric, fault_class = ${completion.faultClass}, deadline_at = NULL
            WHERE id = ${runId} AND worker_id = ${workerId} AND status IN ('claimed', 'running')
              AND deadline_at > ${now}::timestamptz
            RETURNING *`,
          now
        )
        if (ended === undefined) return yield* rejection(workerId, runId, "complete")
        yield* published(ended)
        return ended
      }).pipe(hotSpan("Transitions.complete", { runId }))

    /**
     * Heartbeat or execution deadline passed: `timed_out`, `client` when the
     * run was running past its timeoutSeconds, else `infra` (the worker went
     * silent). Undefined when the deadline moved or another instance won.
     * `followUp` false (no retries left, no webhook, as the caller read from
     * the run's snapshot) makes it the bare UPDATE: many runs time out at
     * once when a fleet of workers goes silent, and that statement is lighter.
     */
    const timeOut = (runId: string, followUp = true): Effect.Effect<Terminal | undefined> =>
      Effect.gen(function*() {
        const now = yield* nowIso
        const update = sql<RunRow>`
          UPDATE runs SET status = 'timed_out', ended_at = ${now}::timestamptz,
            duration_ms = ${durationMs(now)(sql)},
            fault_class = CASE
              WHEN status = 'running' AND started_at + timeout_seconds * interval '1 second' <= ${now}::timestamptz
              THEN 'client' ELSE 'infra' END,
            deadline_at = NULL
          WHERE id = ${runId} AND status IN ('claimed', 'running') AND deadline_at <= ${now}::timestamptz
          RETURNING *`
        const ended = followUp
          ? yield* terminal(update, now)
          : yield* Effect.map(Effect.orDie(update), (rows): Terminal | undefined =>
            rows[0] === undefined ? undefined : { run: rows[0], retry: undefined })
        yield* published(ended)
        return ended
      }).pipe(hotSpan("Transitions.timeOut", { runId }))

    return { claim, claimMany, startMany, assignedTo, start, heartbeat, complete, timeOut } as const
  })
}) {}
