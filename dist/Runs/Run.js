import * as Schema from "effect/Schema";
import { canonicalOrNull } from "../Domain/Decimal.js";
import { Timestamp } from "../Domain/Schemas.js";
export const RunStatus = Schema.Literal("queued", "assigned", "claimed", "running", "succeeded", "failed", "timed_out");
export const activeStatuses = ["queued", "assigned", "claimed", "running"];
export const terminalStatuses = ["succeeded", "failed", "timed_out"];
export const FaultClass = Schema.Literal("infra", "client", "none");
/** The run object of the contract; fields not yet known are null. */
export const Run = Schema.Struct({
    id: Schema.UUID,
    triggerId: Schema.UUID,
    environmentId: Schema.UUID,
    status: RunStatus,
    attempt: Schema.Int,
    retryOfRunId: Schema.NullOr(Schema.UUID),
    workerId: Schema.NullOr(Schema.UUID),
    input: Schema.Unknown,
    durationMs: Schema.NullOr(Schema.Int),
    shortMessage: Schema.NullOr(Schema.String),
    errorMessage: Schema.NullOr(Schema.String),
    costUsd: Schema.NullOr(Schema.String),
    faultClass: Schema.NullOr(FaultClass),
    createdAt: Timestamp,
    assignedAt: Schema.NullOr(Timestamp),
    claimedAt: Schema.NullOr(Timestamp),
    startedAt: Schema.NullOr(Timestamp),
    lastHeartbeatAt: Schema.NullOr(Timestamp),
    endedAt: Schema.NullOr(Timestamp)
}).annotations({ identifier: "Run" });
// PGlite hands back timestamptz as Date, node-postgres too; a string slips
// through only from raw queries, so normalise defensively.
const date = (value) => value instanceof Date ? value : new Date(value);
const dateOrNull = (value) => value === null ? null : date(value);
/** Never exposes the idempotency key, the snapshot or the (encrypted) webhook secret. */
export const toRun = (row) => ({
    id: row.id,
    triggerId: row.trigger_id,
    environmentId: row.environment_id,
    status: row.status,
    attempt: row.attempt,
    retryOfRunId: row.retry_of_run_id,
    workerId: row.worker_id,
    input: row.input ?? null,
    durationMs: row.duration_ms === null ? null : Number(row.duration_ms),
    shortMessage: row.short_message,
    errorMessage: row.error_message,
    costUsd: canonicalOrNull(row.cost_usd),
    faultClass: row.fault_class,
    createdAt: date(row.created_at),
    assignedAt: dateOrNull(row.assigned_at),
    claimedAt: dateOrNull(row.claimed_at),
    startedAt: dateOrNull(row.started_at),
    lastHeartbeatAt: dateOrNull(row.last_heartbeat_at),
    endedAt: dateOrNull(row.ended_at)
});
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Path ids are checked before they reach SQL: a malformed id is simply not found. */
export const isUuid = (value) => uuidPattern.test(value);
//# sourceMappingURL=Run.js.map