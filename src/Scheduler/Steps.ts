import * as Effect from "effect/Effect"
import { hotSpan } from "../Config/Tracing.js"
import * as Metrics from "../Observability/Metrics.js"
import type { PolledRow, RunRow } from "../Runs/Run.js"
import { recordRunEvents } from "../Runs/RunTimeline.js"
import type { RunRejection, WorkerStep } from "./RunRejection.js"
import { nowIso } from "../Domain/Time.js"
import type { TransitionKit } from "./TransitionKit.js"

/** Dispatch latency (request to claim) of runs just claimed. */
const dispatched = (rows: ReadonlyArray<RunRow>): void => {
  for (const row of rows) {
    if (row.claimed_at !== null) {
      Metrics.record.dispatched(row.environment_id, new Date(row.claimed_at).getTime() - new Date(row.created_at).getTime())
    }
  }
}

/**
 * A worker's steps before the end: claim, start and heartbeat, single or
 * grouped, and what a poll hands out. None ends a run, so none writes a
 * retry or a webhook (see `Terminal` for those).
 */
export const make = (kit: TransitionKit) => {
  const { announced, cancelCapped, claimedSet, rejections, sql, startedSet } = kit

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
        FROM claimed c JOIN triggers t ON t.id = c.trigger_id ORDER BY c.id`).pipe(
      Effect.orDie,
      Effect.tap((rows) => dispatched(rows)),
      Effect.tap(announced),
      hotSpan("Transitions.claimMany")
    )

  /** The worker's assigned, not yet claimed runs (what a poll hands out). */
  const assignedTo = (workerId: string, max: number): Effect.Effect<ReadonlyArray<PolledRow>> =>
    Effect.flatMap(nowIso, (now) =>
      sql<PolledRow>`
        SELECT r.*, t.name AS trigger_name, t.input AS trigger_input
        FROM runs r JOIN triggers t ON t.id = r.trigger_id
        WHERE r.worker_id = ${workerId} AND r.ended_at IS NULL AND r.status = 'assigned' AND r.deadline_at > ${now}::timestamptz
        ORDER BY r.id LIMIT ${max}`).pipe(Effect.orDie)

  // What each non-terminal step sets, and the states it moves a run from.
  const stepSet = (step: Exclude<WorkerStep, "complete">, now: string) => {
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
  const stepFrom = (step: Exclude<WorkerStep, "complete">) => {
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
   * what it was handed). Each run moves as its own call would; for each run
   * it could not move, why: not the worker's (`RunNotFound`) or the wrong
   * state or a passed deadline (`RunStateConflict`).
   */
  const stepMany = (
    workerId: string,
    runIds: ReadonlyArray<string>,
    step: Exclude<WorkerStep, "complete">
  ): Effect.Effect<{ readonly moved: ReadonlyArray<RunRow>; readonly rejected: ReadonlyArray<RunRejection> }> =>
    Effect.gen(function*() {
      const now = yield* nowIso
      const update = sql`
        UPDATE runs SET ${stepSet(step, now)}
        WHERE id = ANY(${runIds}::uuid[]) AND worker_id = ${workerId} AND ${stepFrom(step)}
          AND deadline_at > ${now}::timestamptz
        RETURNING *`
      // A heartbeat moves no run along its timeline: nothing to record.
      const moved = yield* (step === "heartbeat" ? sql<RunRow>`${update}` : sql<RunRow>`
        WITH moved AS (${update}),
        logged AS (${recordRunEvents(sql, { from: sql`moved`, reason: step === "claim" ? "claimed" : "started", at: now })})
        SELECT * FROM moved`).pipe(Effect.orDie)
      if (step === "claim") dispatched(moved)
      if (step !== "heartbeat") yield* announced(moved)
      const done = new Set(moved.map((row) => row.id))
      const missing = runIds.filter((id) => !done.has(id))
      const rejected = missing.length === 0 ? [] : yield* rejections(workerId, missing, step)
      return { moved, rejected }
    }).pipe(hotSpan("Transitions.stepMany"))

  return { claimMany, assignedTo, stepMany } as const
}
