import type * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"
import type { FaultClass } from "../Domain/Run.js"

/**
 * The SET clauses and expressions two or more run statements write (the
 * steps, the endings, cancel), defined once so every statement that moves a
 * run to the same state writes the same columns.
 */
export const make = (sql: SqlClient.SqlClient, cancelGraceSeconds: number) => {
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

  return { cancelGraceSeconds, cancelCapped, claimedSet, startedSet, durationUntil, completedSet, timedOutSet, timeoutReason } as const
}

export type SetClauses = ReturnType<typeof make>
