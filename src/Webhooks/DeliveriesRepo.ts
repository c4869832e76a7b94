import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { ParseError } from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { uuidv7 } from "../Crypto/Ids.js"
import { outboxChannel } from "./Outbox.js"
import { payloadOf, type TerminalRun } from "./Payload.js"
import { hotSpan } from "../Config/Tracing.js"

/** A row of `webhook_outbox`: one pending delivery, with the run's URL, secret snapshot and the body to send. */
export interface OutboxRow {
  readonly run_id: string
  readonly trigger_id: string
  readonly url: string
  readonly secret_enc: string | null
  readonly payload: string
  readonly attempts: number
  readonly last_status_code: number | null
  readonly last_response_body: string | null
  readonly last_error: string | null
}

/** What started a delivery: the run's terminal transition, or an operator asking for it again. */
export const DeliveryTrigger = Schema.Literal("automatic", "manual")
export type DeliveryTrigger = typeof DeliveryTrigger.Type

/** A row of `webhook_deliveries`: the final outcome of one delivery of a run's webhook. */
export const DeliveryRow = Schema.Struct({
  id: Schema.String,
  run_id: Schema.String,
  trigger_id: Schema.String,
  url: Schema.String,
  trigger: DeliveryTrigger,
  outcome: Schema.Literal("delivered", "failed"),
  status_code: Schema.NullOr(Schema.Number),
  response_body: Schema.NullOr(Schema.String),
  attempt_count: Schema.Number,
  error_message: Schema.NullOr(Schema.String),
  created_at: Schema.DateFromSelf
})
export interface DeliveryRow extends Schema.Schema.Type<typeof DeliveryRow> {}

/** A delivery row as the contract's `WebhookDelivery` says it (the deliveries API, a run's detail). */
export const deliveryFields = (row: DeliveryRow) => ({
  id: row.id,
  runId: row.run_id,
  triggerId: row.trigger_id,
  url: row.url,
  trigger: row.trigger,
  outcome: row.outcome,
  statusCode: row.status_code,
  responseBody: row.response_body,
  attemptCount: row.attempt_count,
  errorMessage: row.error_message,
  createdAt: row.created_at
})

/** What redelivering a run depends on. */
const RedeliveryRow = Schema.Struct({
  environment_id: Schema.String,
  trigger_id: Schema.String,
  terminal: Schema.Boolean,
  has_webhook: Schema.Boolean
})

export interface FinalOutcome {
  readonly outcome: "delivered" | "failed"
  readonly statusCode: number | null
  readonly responseBody: string | null
  readonly attempts: number
  readonly error: string | null
}

const ms = (d: Duration.DurationInput) => Math.max(0, Math.round(Duration.toMillis(d)))

/**
 * The outbox and the delivery log. Every statement that changes an outbox row
 * checks `lease_owner`, so an instance whose lease expired (and was taken by
 * another) cannot touch the row any more.
 */
export class DeliveriesRepo extends Effect.Service<DeliveriesRepo>()("Webhooks/DeliveriesRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /**
     * Leases up to `limit` due rows for `owner`; two instances never lease the
     * same row. Each comes with its body: rendered from the terminal run
     * (rows written before bodies were rendered at lease time carry their own).
     */
    const lease = (
      owner: string,
      limit: number,
      leaseFor: Duration.DurationInput
    ): Effect.Effect<ReadonlyArray<OutboxRow>, SqlError> =>
      sql<Omit<OutboxRow, "payload"> & { readonly payload: string | null } & Omit<TerminalRun, "id" | "trigger_id">>`
        WITH picked AS (
          SELECT run_id FROM webhook_outbox
          WHERE next_attempt_at <= now() AND (lease_until IS NULL OR lease_until < now())
          ORDER BY next_attempt_at
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED
        ), leased AS (
          UPDATE webhook_outbox o
          SET lease_owner = ${owner}, lease_until = now() + (${ms(leaseFor)}::int * interval '1 millisecond')
          FROM picked WHERE o.run_id = picked.run_id
          RETURNING o.run_id, o.trigger_id, o.url, o.secret_enc, o.payload, o.attempts,
            o.last_status_code, o.last_response_body, o.last_error
        )
        SELECT leased.*, r.status, r.duration_ms, r.short_message, r.error_message, r.cost_usd, r.fault_class, r.ended_at
        FROM leased JOIN runs r ON r.id = leased.run_id`.pipe(
        Effect.map((rows) =>
          rows.map(({ cost_usd, duration_ms, ended_at, error_message, fault_class, payload, short_message, status, ...row }) => ({
            ...row,
            payload: payload ?? payloadOf({
              id: row.run_id,
              trigger_id: row.trigger_id,
              status,
              duration_ms,
              short_message,
              error_message,
              cost_usd,
              fault_class,
              ended_at
            })
          }))
        ),
        hotSpan("DeliveriesRepo.lease")
      )

    /**
     * Records a failed attempt before the backoff: a crash from here on resumes
     * with this attempt count at `next_attempt_at` (on any instance, once the
     * lease, kept through the backoff, has expired or been released).
     */
    const reschedule = (
      owner: string,
      runId: string,
      attempts: number,
      delay: Duration.DurationInput,
      leaseFor: Duration.DurationInput,
      last: { statusCode: number | null; responseBody: string | null; error: string }
    ): Effect.Effect<void, SqlError> =>
      sql`
        UPDATE webhook_outbox
        SET attempts = ${attempts},
            next_attempt_at = now() + (${ms(delay)}::int * interval '1 millisecond'),
            lease_until = now() + (${ms(delay) + ms(leaseFor)}::int * interval '1 millisecond'),
            last_status_code = ${last.statusCode},
            last_response_body = ${last.responseBody},
            last_error = ${last.error}
        WHERE run_id = ${runId} AND lease_owner = ${owner}`.pipe(
        Effect.asVoid,
        hotSpan("DeliveriesRepo.reschedule")
      )

    /**
     * Final outcomes, in one statement for many deliveries: each outbox row
     * goes and its delivery record comes. Answers the run ids whose rows were
     * still ours; a row another instance has leased since is left to it (it
     * records the outcome itself).
     */
    const finalizeMany = (
      owner: string,
      items: ReadonlyArray<{ readonly row: OutboxRow; readonly final: FinalOutcome }>
    ): Effect.Effect<ReadonlySet<string>, SqlError> =>
      // The outbox row goes in the same statement, so each delivery is recorded once.
      sql<{ run_id: string }>`
        WITH input AS (
          SELECT * FROM unnest(
            ${items.map(() => uuidv7())}::uuid[], ${items.map((i) => i.row.run_id)}::uuid[],
            ${items.map((i) => i.final.outcome)}::text[], ${items.map((i) => i.final.statusCode)}::int[],
            ${items.map((i) => i.final.responseBody)}::text[], ${items.map((i) => i.final.attempts)}::int[],
            ${items.map((i) => i.final.error)}::text[]
          ) AS i(id, run_id, outcome, status_code, response_body, attempt_count, error_message)
        ), deleted AS (
          DELETE FROM webhook_outbox o USING input
          WHERE o.run_id = input.run_id AND o.lease_owner = ${owner}
          RETURNING o.run_id, o.trigger_id, o.url, o.trigger
        ), recorded AS (
          INSERT INTO webhook_deliveries
            (id, run_id, trigger_id, url, trigger, outcome, status_code, response_body, attempt_count, error_message)
          SELECT input.id, deleted.run_id, deleted.trigger_id, deleted.url, deleted.trigger, input.outcome, input.status_code,
            input.response_body, input.attempt_count, input.error_message
          FROM deleted JOIN input ON input.run_id = deleted.run_id
        )
        SELECT run_id FROM deleted`.pipe(
        Effect.map((rows) => new Set(rows.map((r) => r.run_id))),
        hotSpan("DeliveriesRepo.finalize")
      )

    /** Hands every row leased by `owner` back (shutdown): they are due again at their `next_attempt_at`. */
    const release = (owner: string): Effect.Effect<number, SqlError> =>
      sql`
        UPDATE webhook_outbox SET lease_owner = NULL, lease_until = NULL
        WHERE lease_owner = ${owner} RETURNING run_id`.pipe(Effect.map((rows) => rows.length))

    /** Milliseconds until the earliest unleased row is due (≤ 0: due now), or None when there is none. */
    const nextDueIn: Effect.Effect<Option.Option<number>, SqlError> = sql<{ ms: string | number | null }>`
      SELECT (EXTRACT(EPOCH FROM (min(next_attempt_at) - now())) * 1000)::float8 AS ms
      FROM webhook_outbox WHERE lease_until IS NULL OR lease_until < now()`.pipe(
      Effect.map((rows) => {
        const value = rows[0]?.ms
        return value === null || value === undefined ? Option.none() : Option.some(Number(value))
      })
    )

    const activeTrigger = SqlSchema.findOne({
      Request: Schema.String,
      Result: Schema.Struct({ environment_id: Schema.String }),
      execute: (triggerId) => sql`SELECT environment_id FROM triggers WHERE id = ${triggerId} AND deleted_at IS NULL`
    })

    /** The environment of a trigger that is not deleted. */
    const triggerEnvironment = (triggerId: string): Effect.Effect<Option.Option<string>, SqlError | ParseError> =>
      Effect.map(activeTrigger(triggerId), Option.map((row) => row.environment_id))

    /** A page of the delivery log of one trigger or one run (each column has its index), newest first. */
    const deliveriesPage = SqlSchema.findAll({
      Request: Schema.Struct({
        column: Schema.Literal("trigger_id", "run_id"),
        id: Schema.String,
        before: Schema.UndefinedOr(Schema.String),
        limit: Schema.Number
      }),
      Result: DeliveryRow,
      execute: ({ before, column, id, limit }) =>
        sql`
        SELECT id, run_id, trigger_id, url, trigger, outcome, status_code, response_body, attempt_count, error_message, created_at
        FROM webhook_deliveries
        WHERE ${sql(column)} = ${id} AND ${before === undefined ? sql`TRUE` : sql`id < ${before}`}
        ORDER BY id DESC
        LIMIT ${limit + 1}`
    })

    /** A page of a trigger's delivery log, newest first: `limit + 1` rows, for `Pagination.page`. */
    const listByTrigger = (
      triggerId: string,
      before: string | undefined,
      limit: number
    ): Effect.Effect<ReadonlyArray<DeliveryRow>, SqlError | ParseError> =>
      deliveriesPage({ column: "trigger_id", id: triggerId, before, limit })

    /** A page of one run's deliveries, newest first (index `webhook_deliveries_run`): `limit + 1` rows, for `Pagination.page`. */
    const listByRun = (
      runId: string,
      before: string | undefined,
      limit: number
    ): Effect.Effect<ReadonlyArray<DeliveryRow>, SqlError | ParseError> =>
      deliveriesPage({ column: "run_id", id: runId, before, limit })

    /** The run's latest delivery (the one a run's detail shows), or undefined when it has none yet. */
    const latestOfRun = (runId: string): Effect.Effect<DeliveryRow | undefined, SqlError> =>
      sql<DeliveryRow>`
          SELECT id, run_id, trigger_id, url, trigger, outcome, status_code, response_body, attempt_count, error_message, created_at
          FROM webhook_deliveries WHERE run_id = ${runId}
          ORDER BY created_at DESC, id DESC LIMIT 1`.pipe(
        Effect.map(([row]) =>
          row === undefined
            ? undefined
            : { ...row, created_at: row.created_at instanceof Date ? row.created_at : new Date(row.created_at) }
        )
      )

    const redeliveryOf = SqlSchema.findOne({
      Request: Schema.String,
      Result: RedeliveryRow,
      execute: (runId) =>
        sql`SELECT environment_id, trigger_id, ended_at IS NOT NULL AS terminal, webhook_url IS NOT NULL AS has_webhook
            FROM runs WHERE id = ${runId}`
    })

    /** What redelivering a run depends on; None when there is no such run. */
    const runForRedelivery = (runId: string): Effect.Effect<Option.Option<typeof RedeliveryRow.Type>, SqlError | ParseError> =>
      redeliveryOf(runId)

    /**
     * A new delivery of a terminal run's webhook, started by an operator: an
     * outbox row like the terminal transition's (the run's URL and sealed
     * secret; the body rendered from the run when leased, so the same bytes),
     * announced for any instance's loop to lease. The outbox holds one row
     * per run, so while a delivery of the run is pending this inserts
     * nothing: false.
     */
    const redeliver = (runId: string): Effect.Effect<boolean, SqlError> =>
      sql`
        WITH queued AS (
          INSERT INTO webhook_outbox (run_id, trigger_id, url, secret_enc, trigger)
          SELECT id, trigger_id, webhook_url, webhook_secret_enc, ${"manual" satisfies DeliveryTrigger}
          FROM runs WHERE id = ${runId} AND ended_at IS NOT NULL AND webhook_url IS NOT NULL
          ON CONFLICT (run_id) DO NOTHING
          RETURNING run_id
        )
        -- Delivered at commit, when the row is visible.
        SELECT run_id, pg_notify(${outboxChannel}, run_id::text) FROM queued`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.withSpan("DeliveriesRepo.redeliver")
      )

    return {
      lease,
      reschedule,
      finalizeMany,
      release,
      nextDueIn,
      triggerEnvironment,
      listByTrigger,
      listByRun,
      latestOfRun,
      runForRedelivery,
      redeliver
    } as const
  })
}) {}
