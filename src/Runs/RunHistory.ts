import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { type RunRow, type RunStatus, toRun } from "../Domain/Run.js"
import type { DeliveryRow } from "../Webhooks/DeliveriesRepo.js"
import { WebhookDelivery } from "../Webhooks/Api.js"
import type { RunDetail, RunEvent } from "./RunDetail.js"
import type { RunEventReason } from "../Domain/Run.js"

interface DetailRow extends RunRow {
  readonly trigger_name: string
  readonly retried_by_run_id: string | null
}

interface RunEventRow {
  readonly status: RunStatus
  readonly at: Date
  readonly worker_id: string | null
  readonly reason: RunEventReason
}

/** Reads of one run by id: the row and its stored timeline. */
export class RunHistory extends Effect.Service<RunHistory>()("Runs/History", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** The run, or undefined. The caller checks the environment's policy. */
    const find = (runId: string): Effect.Effect<RunRow | undefined> =>
      sql<RunRow>`SELECT * FROM runs WHERE id = ${runId}`.pipe(Effect.map((rows) => rows[0]), Effect.orDie)

    /** The run's transitions in the order they happened. */
    const events = (runId: string): Effect.Effect<ReadonlyArray<RunEvent>> =>
      sql<RunEventRow>`
        SELECT status, at, worker_id, reason FROM run_events WHERE run_id = ${runId} ORDER BY id`.pipe(
        Effect.map((rows) =>
          rows.map((row): RunEvent => ({
            status: row.status,
            at: row.at instanceof Date ? row.at : new Date(row.at),
            workerId: row.worker_id,
            reason: row.reason
          }))
        ),
        Effect.orDie,
        Effect.withSpan("RunHistory.events")
      )

    /**
     * The run with what the detail adds. The retry is looked up among the
     * trigger's later runs (its index; the retry follows soon after) and only
     * when the run can have one. `cancelRequestedAt` is the run object's own.
     */
    const detail = (run: RunRow): Effect.Effect<RunDetail> =>
      Effect.gen(function*() {
        const canRetry = (run.status === "failed" || run.status === "timed_out") && run.attempt <= run.max_retries
        const [row] = yield* sql<DetailRow>`
          SELECT r.*, t.name AS trigger_name,
            ${
          canRetry
            ? sql`(SELECT c.id FROM runs c WHERE c.trigger_id = r.trigger_id AND c.id > r.id AND c.retry_of_run_id = r.id
                ORDER BY c.id LIMIT 1)`
            : sql`NULL::uuid`
        } AS retried_by_run_id
          FROM runs r JOIN triggers t ON t.id = r.trigger_id
          WHERE r.id = ${run.id}`
        const [delivery] = yield* sql<DeliveryRow>`
          SELECT id, run_id, trigger_id, url, trigger, outcome, status_code, response_body, attempt_count, error_message, created_at
          FROM webhook_deliveries WHERE run_id = ${run.id}
          ORDER BY created_at DESC, id DESC LIMIT 1`
        const current = row ?? { ...run, trigger_name: "", retried_by_run_id: null }
        return {
          ...toRun(current),
          triggerName: current.trigger_name,
          retriedByRunId: current.retried_by_run_id,
          delivery: delivery === undefined ? null : new WebhookDelivery({
            id: delivery.id,
            runId: delivery.run_id,
            triggerId: delivery.trigger_id,
            url: delivery.url,
            trigger: delivery.trigger,
            outcome: delivery.outcome,
            statusCode: delivery.status_code,
            responseBody: delivery.response_body,
            attemptCount: delivery.attempt_count,
            errorMessage: delivery.error_message,
            createdAt: delivery.created_at instanceof Date ? delivery.created_at : new Date(delivery.created_at)
          })
        }
      }).pipe(Effect.orDie, Effect.withSpan("RunHistory.detail"))

    return { find, events, detail } as const
  })
}) {}
