import * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
import * as Schema from "effect/Schema";
import { Timestamp } from "../Domain/Schemas.js";
import { isUuid, Run, RunStatus, toRun } from "./Run.js";
import { WebhookDelivery } from "../Webhooks/Api.js";
import { RunEventReason } from "./RunTimeline.js";
/** One step of a run's timeline (`GET /runs/{id}/events`). */
export const RunEvent = Schema.Struct({
    status: RunStatus,
    at: Timestamp,
    workerId: Schema.NullOr(Schema.UUID),
    reason: RunEventReason
}).annotations({ identifier: "RunEvent" });
/** `GET /runs/{id}`: the run object with its trigger's name, its lineage, its latest webhook delivery and cancel request. */
export const RunDetail = Schema.Struct({
    ...Run.fields,
    triggerName: Schema.String,
    retriedByRunId: Schema.NullOr(Schema.UUID),
    delivery: Schema.NullOr(WebhookDelivery),
    cancelRequestedAt: Schema.NullOr(Timestamp)
}).annotations({ identifier: "RunDetail" });
/** Reads of one run by id: the row and its stored timeline. */
export class RunHistory extends Effect.Service()("Runs/History", {
    effect: Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient;
        /** The run, or undefined (also for a malformed id). The caller checks the environment's policy. */
        const find = (runId) => isUuid(runId)
            ? sql `SELECT * FROM runs WHERE id = ${runId}`.pipe(Effect.map((rows) => rows[0]), Effect.orDie)
            : Effect.succeed(undefined);
        /** The run's transitions in the order they happened. */
        const events = (runId) => sql `
        SELECT status, at, worker_id, reason FROM run_events WHERE run_id = ${runId} ORDER BY id`.pipe(Effect.map((rows) => rows.map((row) => ({
            status: row.status,
            at: row.at instanceof Date ? row.at : new Date(row.at),
            workerId: row.worker_id,
            reason: row.reason
        }))), Effect.orDie, Effect.withSpan("RunHistory.events"));
        /**
         * The run with what the detail adds. The retry is looked up among the
         * trigger's later runs (its index; the retry follows soon after) and only
         * when the run can have one. `cancel_requested_at` is read through the
         * row's JSON, so it is null until the column exists (the cancel feature
         * adds it) and read as soon as it does.
         */
        const detail = (run) => Effect.gen(function* () {
            const canRetry = (run.status === "failed" || run.status === "timed_out") && run.attempt <= run.max_retries;
            const [row] = yield* sql `
          SELECT r.*, t.name AS trigger_name,
            (to_jsonb(r) ->> 'cancel_requested_at')::timestamptz AS cancel_requested_at,
            ${canRetry
                ? sql `(SELECT c.id FROM runs c WHERE c.trigger_id = r.trigger_id AND c.id > r.id AND c.retry_of_run_id = r.id
                ORDER BY c.id LIMIT 1)`
                : sql `NULL::uuid`} AS retried_by_run_id
          FROM runs r JOIN triggers t ON t.id = r.trigger_id
          WHERE r.id = ${run.id}`;
            const [delivery] = yield* sql `
          SELECT id, run_id, trigger_id, url, outcome, status_code, response_body, attempt_count, error_message, created_at
          FROM webhook_deliveries WHERE run_id = ${run.id}
          ORDER BY created_at DESC, id DESC LIMIT 1`;
            const current = row ?? { ...run, trigger_name: "", retried_by_run_id: null, cancel_requested_at: null };
            const cancelRequestedAt = current.cancel_requested_at;
            return {
                ...toRun(current),
                triggerName: current.trigger_name,
                retriedByRunId: current.retried_by_run_id,
                delivery: delivery === undefined ? null : new WebhookDelivery({
                    id: delivery.id,
                    runId: delivery.run_id,
                    triggerId: delivery.trigger_id,
                    url: delivery.url,
                    outcome: delivery.outcome,
                    statusCode: delivery.status_code,
                    responseBody: delivery.response_body,
                    attemptCount: delivery.attempt_count,
                    errorMessage: delivery.error_message,
                    createdAt: delivery.created_at instanceof Date ? delivery.created_at : new Date(delivery.created_at)
                }),
                cancelRequestedAt: cancelRequestedAt === null ? null : new Date(cancelRequestedAt)
            };
        }).pipe(Effect.orDie, Effect.withSpan("RunHistory.detail"));
        return { find, events, detail };
    })
}) {
}
//# sourceMappingURL=RunHistory.js.map