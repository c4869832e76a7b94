import * as Schema from "effect/Schema"
import { canonicalOrNull } from "./Decimal.js"
import { Timestamp } from "./Schemas.js"

export const RunStatus = Schema.Literal("queued", "assigned", "claimed", "running", "succeeded", "failed", "timed_out", "cancelled")
export type RunStatus = typeof RunStatus.Type

export const activeStatuses = ["queued", "assigned", "claimed", "running"] as const
export const terminalStatuses = ["succeeded", "failed", "timed_out", "cancelled"] as const
export type TerminalStatus = typeof terminalStatuses[number]

/** Why a run moved: each entry of `GET /runs/{id}/events` names one. */
export const RunEventReason = Schema.Literal(
  "requested",
  "assigned",
  "claimed",
  "started",
  "completed",
  "claim_timeout",
  "heartbeat_timeout",
  "execution_timeout",
  "cancelled",
  "worker_revoked",
  "released"
)
export type RunEventReason = typeof RunEventReason.Type

export const FaultClass = Schema.Literal("infra", "client", "none")
export type FaultClass = typeof FaultClass.Type

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
  endedAt: Schema.NullOr(Timestamp),
  /** When a cancel was requested of the run while a worker held it; null otherwise. */
  cancelRequestedAt: Schema.NullOr(Timestamp)
}).annotations({ identifier: "Run" })
export type Run = typeof Run.Type

/**
 * A `runs` row as the database returns it (timestamptz as `Date`; bigint and
 * numeric as text on both backends; `duration_ms` is a number where a
 * statement computes it as int).
 */
export const RunRow = Schema.Struct({
  id: Schema.String,
  trigger_id: Schema.String,
  environment_id: Schema.String,
  status: RunStatus,
  attempt: Schema.Number,
  retry_of_run_id: Schema.NullOr(Schema.String),
  worker_id: Schema.NullOr(Schema.String),
  /** Any JSON; SQL NULL when the run has no input. */
  input: Schema.Unknown,
  duration_ms: Schema.NullOr(Schema.Union(Schema.Number, Schema.String)),
  short_message: Schema.NullOr(Schema.String),
  error_message: Schema.NullOr(Schema.String),
  cost_usd: Schema.NullOr(Schema.String),
  fault_class: Schema.NullOr(FaultClass),
  idempotency_key: Schema.NullOr(Schema.String),
  timeout_seconds: Schema.Number,
  heartbeat_timeout_seconds: Schema.Number,
  max_retries: Schema.Number,
  webhook_url: Schema.NullOr(Schema.String),
  webhook_secret_enc: Schema.NullOr(Schema.String),
  deadline_at: Schema.NullOr(Schema.DateFromSelf),
  created_at: Schema.DateFromSelf,
  assigned_at: Schema.NullOr(Schema.DateFromSelf),
  claimed_at: Schema.NullOr(Schema.DateFromSelf),
  started_at: Schema.NullOr(Schema.DateFromSelf),
  last_heartbeat_at: Schema.NullOr(Schema.DateFromSelf),
  ended_at: Schema.NullOr(Schema.DateFromSelf),
  cancel_requested_at: Schema.NullOr(Schema.DateFromSelf)
})
export interface RunRow extends Schema.Schema.Type<typeof RunRow> {}

// PGlite hands back timestamptz as Date, node-postgres too; a string slips
// through only from raw queries, so normalise defensively.
const date = (value: Date | string): Date => value instanceof Date ? value : new Date(value)
const dateOrNull = (value: Date | string | null): Date | null => value === null ? null : date(value)

/** Never exposes the idempotency key, the snapshot or the (encrypted) webhook secret. */
export const toRun = (row: RunRow): Run => ({
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
  endedAt: dateOrNull(row.ended_at),
  // Absent from rows a statement built without the column (older callers' raw selects).
  cancelRequestedAt: dateOrNull(row.cancel_requested_at ?? null)
})

/** A polled run with the summary of its trigger the worker needs. */
export interface PolledRow extends RunRow {
  readonly trigger_name: string
  readonly trigger_input: unknown
}
