import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { type RunRow, type RunStatus, toRun } from "../Contract/Domain/Run.js"
import { DeliveriesRepo, deliveryFields } from "../Webhooks/DeliveriesRepo.js"
import { Tuning } from "../Config/Tuning.js"
import { nowIso } from "../Db/Time.js"
import { waitReasonJoin } from "../RunStore/Placement.js"
import { WebhookDelivery } from "../Contract/WebhooksApi.js"
import type { RunDetail, RunEvent } from "../Contract/RunDetail.js"
import type { RunEventReason } from "../Contract/Domain/Run.js"

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
    const deliveries = yield* DeliveriesRepo
    const tuning = yield* Tuning

    /** The run, or undefined; a queued run with its wait reason as of now. The caller checks the environment's policy. */
    const find = (runId: string): Effect.Effect<RunRow | undefined> =>
      Effect.flatMap(nowIso, (now) =>
        sql<RunRow>`SELECT r.*, wr.wait_reason, wr.wait_pool FROM runs r ${waitReasonJoin(sql, now, tuning)} WHERE r.id = ${runId}`).pipe(
          Effect.map((rows) => rows[0]),
          Effect.orDie
        )

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
        const delivery = yield* deliveries.latestOfRun(run.id)
        // The wait reason as `find` computed it (the row re-read here has none).
        const current = row === undefined ? { ...run, trigger_name: "", retried_by_run_id: null } : { ...row, wait_reason: run.wait_reason, wait_pool: run.wait_pool }
        return {
          ...toRun(current),
          triggerName: current.trigger_name,
          retriedByRunId: current.retried_by_run_id,
          delivery: delivery === undefined ? null : new WebhookDelivery(deliveryFields(delivery)),
          output: current.output ?? null
        }
      }).pipe(Effect.orDie, Effect.withSpan("RunHistory.detail"))

    return { find, events, detail } as const
  }),
  dependencies: [DeliveriesRepo.Default]
}) {}
