import * as SqlClient from "@effect/sql/SqlClient";
import * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import { uuidv7 } from "../Crypto/Ids.js";
import { payloadOf } from "./Payload.js";
import { hotSpan } from "../Config/Tracing.js";
const ms = (d) => Math.max(0, Math.round(Duration.toMillis(d)));
/**
 * The outbox and the delivery log. Every statement that changes an outbox row
 * checks `lease_owner`, so an instance whose lease expired (and was taken by
 * another) cannot touch the row any more.
 */
export class DeliveriesRepo extends Effect.Service()("Webhooks/DeliveriesRepo", {
    effect: Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient;
        /**
         * Leases up to `limit` due rows for `owner`; two instances never lease the
         * same row. Each comes with its body: rendered from the terminal run
         * (rows written before bodies were rendered at lease time carry their own).
         */
        const lease = (owner, limit, leaseFor) => sql `
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
        FROM leased JOIN runs r ON r.id = leased.run_id`.pipe(Effect.map((rows) => rows.map(({ cost_usd, duration_ms, ended_at, error_message, fault_class, payload, short_message, status, ...row }) => ({
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
        }))), hotSpan("DeliveriesRepo.lease"));
        /**
         * Records a failed attempt before the backoff: a crash from here on resumes
         * with this attempt count at `next_attempt_at` (on any instance, once the
         * lease, kept through the backoff, has expired or been released).
         */
        const reschedule = (owner, runId, attempts, delay, leaseFor, last) => sql `
        UPDATE webhook_outbox
        SET attempts = ${attempts},
            next_attempt_at = now() + (${ms(delay)}::int * interval '1 millisecond'),
            lease_until = now() + (${ms(delay) + ms(leaseFor)}::int * interval '1 millisecond'),
            last_status_code = ${last.statusCode},
            last_response_body = ${last.responseBody},
            last_error = ${last.error}
        WHERE run_id = ${runId} AND lease_owner = ${owner}`.pipe(Effect.asVoid, hotSpan("DeliveriesRepo.reschedule"));
        /**
         * Final outcomes, in one statement for many deliveries: each outbox row
         * goes and its delivery record comes. Answers the run ids whose rows were
         * still ours; a row another instance has leased since is left to it (it
         * records the outcome itself).
         */
        const finalizeMany = (owner, items) => 
        // run_id is UNIQUE: a record written by an earlier, interrupted process stays the only one.
        sql `
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
          RETURNING o.run_id, o.trigger_id, o.url
        ), recorded AS (
          INSERT INTO webhook_deliveries
            (id, run_id, trigger_id, url, outcome, status_code, response_body, attempt_count, error_message)
          SELECT input.id, deleted.run_id, deleted.trigger_id, deleted.url, input.outcome, input.status_code,
            input.response_body, input.attempt_count, input.error_message
          FROM deleted JOIN input ON input.run_id = deleted.run_id
          ON CONFLICT (run_id) DO NOTHING
        )
        SELECT run_id FROM deleted`.pipe(Effect.map((rows) => new Set(rows.map((r) => r.run_id))), hotSpan("DeliveriesRepo.finalize"));
        /** Hands every row leased by `owner` back (shutdown): they are due again at their `next_attempt_at`. */
        const release = (owner) => sql `
        UPDATE webhook_outbox SET lease_owner = NULL, lease_until = NULL
        WHERE lease_owner = ${owner} RETURNING run_id`.pipe(Effect.map((rows) => rows.length));
        /** Milliseconds until the earliest unleased row is due (≤ 0: due now), or None when there is none. */
        const nextDueIn = sql `
      SELECT (EXTRACT(EPOCH FROM (min(next_attempt_at) - now())) * 1000)::float8 AS ms
      FROM webhook_outbox WHERE lease_until IS NULL OR lease_until < now()`.pipe(Effect.map((rows) => {
            const value = rows[0]?.ms;
            return value === null || value === undefined ? Option.none() : Option.some(Number(value));
        }));
        /** The environment of a trigger that is not deleted. */
        const triggerEnvironment = (triggerId) => sql `
        SELECT environment_id FROM triggers WHERE id = ${triggerId} AND deleted_at IS NULL`.pipe(Effect.map((rows) => Option.fromNullable(rows[0]?.environment_id)));
        /** A page of a trigger's delivery log, newest first: `limit + 1` rows, for `Pagination.page`. */
        const listByTrigger = (triggerId, before, limit) => sql `
        SELECT id, run_id, trigger_id, url, outcome, status_code, response_body, attempt_count, error_message, created_at
        FROM webhook_deliveries
        WHERE trigger_id = ${triggerId} AND ${before === undefined ? sql `TRUE` : sql `id < ${before}`}
        ORDER BY id DESC
        LIMIT ${limit + 1}`;
        return { lease, reschedule, finalizeMany, release, nextDueIn, triggerEnvironment, listByTrigger };
    })
}) {
}
//# sourceMappingURL=DeliveriesRepo.js.map