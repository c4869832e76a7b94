import type * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { nowIso } from "../Domain/Time.js"
import type { PolledRow, RunRow, RunStatus } from "../Domain/Run.js"
import { recordRunEvents } from "./RunEvents.js"
import type { SetClauses } from "./SetClauses.js"

/** A worker's step that moves a run without ending it. */
export type MovingStep = "claim" | "start" | "heartbeat"

/**
 * A worker's steps before the end: claim, start and heartbeat, single or
 * grouped, and what a poll hands out. None ends a run, so none writes a
 * retry or a webhook (see `Terminal` for those).
 */
export const make = (sql: SqlClient.SqlClient, clauses: SetClauses) => {
  const { cancelCapped, claimedSet, startedSet } = clauses

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
          RETURNING runs.*),
        logged AS (${
        start
          ? recordRunEvents(sql, {
            from: sql`claimed CROSS JOIN (VALUES (1, 'claimed', 'claimed'), (2, 'running', 'started')) AS step(n, step_status, step_reason)`,
            status: sql`step.step_status`,
            reason: sql`step.step_reason`,
            at: now,
            orderBy: sql`claimed.id, step.n`
          })
          : recordRunEvents(sql, { from: sql`claimed`, reason: "claimed", at: now })
      })
        SELECT c.*, t.name AS trigger_name, t.input AS trigger_input
        FROM claimed c JOIN triggers t ON t.id = c.trigger_id ORDER BY c.id`.pipe(Effect.orDie))

  /** The worker's assigned, not yet claimed runs (what a poll hands out). */
  const assignedTo = (workerId: string, max: number): Effect.Effect<ReadonlyArray<PolledRow>> =>
    Effect.flatMap(nowIso, (now) =>
      sql<PolledRow>`
        SELECT r.*, t.name AS trigger_name, t.input AS trigger_input
        FROM runs r JOIN triggers t ON t.id = r.trigger_id
        WHERE r.worker_id = ${workerId} AND r.ended_at IS NULL AND r.status = 'assigned' AND r.deadline_at > ${now}::timestamptz
        ORDER BY r.id LIMIT ${max}`.pipe(Effect.orDie))

  // What each step sets, and the states it moves a run from.
  const stepSet = (step: MovingStep, now: string) => {
    switch (step) {
      case "claim":
        return sql`claimed_at = ${now}::timestamptz, ${claimedSet(now)}`
      case "start":
        return startedSet(now)
      case "heartbeat":
        // The execution deadline (started_at + timeout) caps every heartbeat,
        // so a chatty worker cannot run past timeoutSeconds.
        return sql`last_heartbeat_at = ${now}::timestamptz,
          deadline_at = ${cancelCapped(sql`CASE WHEN status = 'running'
            THEN LEAST(${now}::timestamptz + heartbeat_timeout_seconds * interval '1 second',
                       started_at + timeout_seconds * interval '1 second')
            ELSE ${now}::timestamptz + heartbeat_timeout_seconds * interval '1 second' END`)}`
    }
  }
  const stepFrom = (step: MovingStep) => {
    switch (step) {
      case "claim":
        return sql`status = 'assigned'`
      case "start":
        return sql`status = 'claimed'`
      case "heartbeat":
        return sql`status IN ('claimed', 'running')`
    }
  }

  /**
   * Claims, starts or heartbeats several of the worker's runs in one
   * statement (grouped worker calls; a waiting `start=true` poll starting
   * what it was handed). Each run moves as its own call would; a run not
   * the worker's, in the wrong state or past its deadline stays where it is
   * and is left out of the answer.
   */
  const stepMany = (workerId: string, runIds: ReadonlyArray<string>, step: MovingStep): Effect.Effect<ReadonlyArray<RunRow>> =>
    Effect.flatMap(nowIso, (now) => {
      const update = sql`
        UPDATE runs SET ${stepSet(step, now)}
        WHERE id = ANY(${runIds}::uuid[]) AND worker_id = ${workerId} AND ${stepFrom(step)}
          AND deadline_at > ${now}::timestamptz
        RETURNING *`
      // A heartbeat moves no run along its timeline: nothing to record.
      return (step === "heartbeat" ? sql<RunRow>`${update}` : sql<RunRow>`
        WITH moved AS (${update}),
        logged AS (${recordRunEvents(sql, { from: sql`moved`, reason: step === "claim" ? "claimed" : "started", at: now })})
        SELECT * FROM moved`).pipe(Effect.orDie)
    })

  /** The status of each of `runIds` the worker holds, to say why a step left it where it was; others' runs are left out. */
  const statusesOf = (
    workerId: string,
    runIds: ReadonlyArray<string>
  ): Effect.Effect<ReadonlyArray<{ readonly id: string; readonly status: RunStatus }>> =>
    sql<{ id: string; status: RunStatus }>`
        SELECT id, status FROM runs WHERE id = ANY(${runIds}::uuid[]) AND worker_id = ${workerId}`.pipe(Effect.orDie)

  return { claimMany, assignedTo, stepMany, statusesOf } as const
}
