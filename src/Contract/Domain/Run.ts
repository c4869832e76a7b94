import * as Schema from "effect/Schema"
import { canonicalOrNull } from "./Decimal.js"
import { Timestamp } from "./Schemas.js"

export const RunStatus = Schema.Literal("queued", "assigned", "claimed", "running", "succeeded", "failed", "timed_out", "cancelled", "expired")
export type RunStatus = typeof RunStatus.Type

export const activeStatuses = ["queued", "assigned", "claimed", "running"] as const
export const terminalStatuses = ["succeeded", "failed", "timed_out", "cancelled", "expired"] as const
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
  "released",
  "expired"
)
export type RunEventReason = typeof RunEventReason.Type

/**
 * Why a queued run is not placed yet (`waitReason` of the run object), in the
 * order they are checked: the first that holds is the answer (see
 * docs/flow-control.md). Null for a run that is not queued, or one about to
 * be placed.
 */
export const waitReasons = [
  // Flow control II: waiting for its `availableAt` (a delay, a `runAt`), or a retry waiting out its backoff.
  "delayed",
  "retry_backoff",
  "pinned_worker_offline",
  "pinned_worker_draining",
  "no_worker_online",
  "trigger_limit",
  "key_limit",
  "pool_limit",
  "workers_full"
] as const
export const WaitReason = Schema.Literal(...waitReasons).annotations({ identifier: "WaitReason" })
export type WaitReason = typeof WaitReason.Type

const utf8 = new TextEncoder()

/** The most JSON a run's `output` may take, in bytes. */
export const maxOutputBytes = 1024 * 1024

/** A run's structured result: any JSON the worker reports with `complete`, at most 1 MiB of it. */
export const RunOutput = Schema.Unknown.pipe(
  Schema.filter((value) => {
    try {
      const json = JSON.stringify(value)
      return json !== undefined && utf8.encode(json).length <= maxOutputBytes
    } catch {
      // A cycle or a bigint: no JSON.
      return false
    }
  }, { message: () => "output must be a JSON value of at most 1 MiB" })
).annotations({
  jsonSchema: { description: "Any JSON value (at most 1 MiB): the run's structured result, returned by GET /runs/{id}." }
})

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
  /** The run this one replays (`POST /runs/{id}/replay`, bulk replays); null otherwise. */
  replayOfRunId: Schema.NullOr(Schema.UUID),
  /** Its request's tags and its trigger's default tags (at most 10). */
  tags: Schema.Array(Schema.String),
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
  cancelRequestedAt: Schema.NullOr(Timestamp),
  /** The run's concurrency key (its request's `concurrencyKey`, or read from its input); null: none. */
  concurrencyKey: Schema.NullOr(Schema.String),
  /**
   * Why the run, queued, waits (`key_limit`: its `concurrencyKey` is full;
   * `pool_limit`: `waitPool` is). Computed when read by `GET /runs/{id}`,
   * run listings and MCP; null for a run that is not queued (and in answers
   * that do not compute it: a run request's 201, the live events).
   */
  waitReason: Schema.NullOr(WaitReason),
  /** The pool that holds the run when `waitReason` is `pool_limit`; null otherwise. */
  waitPool: Schema.NullOr(Schema.String),
  /** When the run may first be placed (a delay, `runAt` or a retry's backoff); null: at once. */
  availableAt: Schema.NullOr(Timestamp),
  /** Seconds the run ranks ahead in the queue (taken as if requested that much earlier); 0 by default. */
  priority: Schema.Int,
  /** A run not claimed by then ends `expired` (its time-to-live); null: never. */
  expiresAt: Schema.NullOr(Timestamp)
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
  replay_of_run_id: Schema.NullOr(Schema.String),
  tags: Schema.Array(Schema.String),
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
  cancel_requested_at: Schema.NullOr(Schema.DateFromSelf),
  /** '' for a run without a key. Absent from rows a statement built without the column. */
  concurrency_key: Schema.optional(Schema.String),
  /** Placed under limits (see docs/flow-control.md). */
  flow_limited: Schema.optional(Schema.Boolean),
  /** Only where a read computed it (`RunStore/WaitReasons`). */
  wait_reason: Schema.optional(Schema.NullOr(WaitReason)),
  wait_pool: Schema.optional(Schema.NullOr(Schema.String)),
  /** The structured result (jsonb); absent from rows a statement built without the column. */
  output: Schema.optional(Schema.Unknown),
  available_at: Schema.NullOr(Schema.DateFromSelf),
  delayed: Schema.Boolean,
  priority: Schema.Number,
  expires_at: Schema.NullOr(Schema.DateFromSelf)
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
  // Absent from rows a statement built without the columns (older callers' raw selects).
  replayOfRunId: row.replay_of_run_id ?? null,
  tags: row.tags ?? [],
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
  cancelRequestedAt: dateOrNull(row.cancel_requested_at ?? null),
  concurrencyKey: row.concurrency_key === undefined || row.concurrency_key === "" ? null : row.concurrency_key,
  // Computed by the read (`RunStore/Placement.waitReasonJoin`), else what the row itself says (a delay).
  waitReason: row.wait_reason ?? waitReasonOf(row),
  waitPool: row.wait_pool ?? null,
  availableAt: dateOrNull(row.available_at ?? null),
  priority: row.priority ?? 0,
  expiresAt: dateOrNull(row.expires_at ?? null)
})

/** `delayed` until the run's `availableAt` (a retry's: `retry_backoff`); the flag is cleared within ms of it. */
const waitReasonOf = (row: RunRow): WaitReason | null =>
  row.status !== "queued" || row.delayed !== true ? null : row.retry_of_run_id === null ? "delayed" : "retry_backoff"

/** A polled run with the summary of its trigger the worker needs. */
export interface PolledRow extends RunRow {
  readonly trigger_name: string
  readonly trigger_input: unknown
  /** What the worker executes: the trigger's, read with the run (never the run's input). */
  readonly trigger_command: string | null
}
