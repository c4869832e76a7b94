import * as Effect from "effect/Effect"
import { hotSpan } from "../Config/Tracing.js"
import { uuidv7 } from "../Crypto/Ids.js"
import type { FaultClass, RunRow } from "../Runs/Run.js"
import { toRun } from "../Runs/Run.js"
import { recordRunEvents } from "../Runs/RunTimeline.js"
import type { RunRejection } from "./RunRejection.js"
import type { Terminal, TerminalStatement } from "./Terminal.js"
import { nowIso } from "../Domain/Time.js"
import type { TransitionKit } from "./TransitionKit.js"

export interface Completion {
  readonly status: "succeeded" | "failed"
  readonly shortMessage: string | null
  readonly errorMessage: string | null
  readonly costUsd: string | null
  readonly faultClass: FaultClass
}

/**
 * A run ends: completed by its worker, timed out by the supervisor (one run
 * with its follow-up, or many bare ones grouped), or timed out at once when
 * its worker is revoked. Each is one conditional UPDATE; those with a
 * follow-up go through the terminal statement (`Terminal`).
 */
export const make = (kit: TransitionKit, terminal: TerminalStatement) => {
  const { announced, completedSet, events, published, rejections, sql, timedOutSet, timeoutReason } = kit

  /**
   * Completes several of the worker's runs in one statement (the batched
   * complete, and grouped single completes). Answers the runs it ended and, for each run it could not,
   * why: not the worker's (`RunNotFound`) or the wrong state (`RunStateConflict`), as `complete`.
   */
  const completeMany = (
    workerId: string,
    items: ReadonlyArray<{ readonly runId: string; readonly completion: Completion }>
  ): Effect.Effect<{ readonly ended: ReadonlyArray<Terminal>; readonly rejected: ReadonlyArray<RunRejection> }> =>
    Effect.gen(function*() {
      const now = yield* nowIso
      const runIds = items.map((item) => item.runId)
      const column = <A>(f: (c: Completion) => A) => items.map((item) => f(item.completion))
      const ended = yield* terminal(
        sql<RunRow>`
          UPDATE runs SET ${completedSet(now)},
            short_message = i.short_message, error_message = i.error_message, cost_usd = i.cost_usd::numeric,
            -- A complete after a cancel request is the worker's acknowledgement: cancelled, whatever it reports.
            status = CASE WHEN runs.cancel_requested_at IS NULL THEN i.status ELSE 'cancelled' END,
            fault_class = CASE WHEN runs.cancel_requested_at IS NULL THEN i.fault_class ELSE 'none' END
          FROM unnest(${runIds}::uuid[], ${column((c) => c.status)}::text[], ${column((c) => c.shortMessage)}::text[],
                      ${column((c) => c.errorMessage)}::text[], ${column((c) => c.costUsd)}::text[],
                      ${column((c) => c.faultClass)}::text[])
            AS i(id, status, short_message, error_message, cost_usd, fault_class)
          WHERE runs.id = i.id AND runs.worker_id = ${workerId} AND runs.status IN ('claimed', 'running')
            AND runs.deadline_at > ${now}::timestamptz
          RETURNING runs.*`,
        sql`CASE WHEN status = 'cancelled' THEN 'cancelled' ELSE 'completed' END`,
        now,
        { runIds, ids: runIds.map(() => uuidv7()) }
      )
      yield* Effect.forEach(ended, published, { discard: true })
      yield* announced(ended.map((t) => t.run))
      const done = new Set(ended.map((t) => t.run.id))
      const missing = runIds.filter((id) => !done.has(id))
      const rejected = missing.length === 0 ? [] : yield* rejections(workerId, missing, "complete")
      return { ended, rejected }
    }).pipe(hotSpan("Transitions.completeMany"))

  /**
   * Heartbeat or execution deadline passed: `timed_out`, `client` when the
   * run was running past its timeoutSeconds, else `infra` (the worker went
   * silent). Undefined when the deadline moved or another instance won.
   * With its follow-up in the same statement (the retry, the webhook);
   * runs with neither end through the lighter `timeOutMany`. `at`: when the
   * supervisor saw the deadline pass (ms), recorded as the run's end; by
   * default the clock's now.
   */
  const timeOut = (runId: string, at?: number): Effect.Effect<Terminal | undefined> =>
    Effect.gen(function*() {
      const now = at === undefined ? yield* nowIso : new Date(at).toISOString()
      const [ended] = yield* terminal(
        sql<RunRow>`
          UPDATE runs SET ${timedOutSet(sql`${now}::timestamptz`)}
          WHERE id = ${runId} AND status IN ('claimed', 'running') AND deadline_at <= ${now}::timestamptz
          RETURNING *`,
        timeoutReason,
        now,
        { runIds: [runId], ids: [uuidv7()] }
      )
      yield* published(ended)
      if (ended !== undefined) yield* announced([ended.run])
      return ended
    }).pipe(hotSpan("Transitions.timeOut", { runId }))

  /**
   * `timeOut` for runs with no follow-up (no retries left, no webhook, as
   * the caller read from each run's snapshot): the bare UPDATE, for several
   * runs in one statement (many runs time out at once when a fleet of
   * workers goes silent, and the supervisor groups them), each recorded as
   * ended at its own `at` (ms). Answers the runs it ended; a run whose
   * deadline moved or that another instance ended is left out.
   */
  const timeOutMany = (items: ReadonlyArray<{ readonly runId: string; readonly at: number }>): Effect.Effect<ReadonlyArray<RunRow>> =>
    Effect.gen(function*() {
      const ended = yield* sql<RunRow>`
        WITH done AS (
          UPDATE runs SET ${timedOutSet(sql`i.at`)}
          FROM unnest(${items.map((item) => item.runId)}::uuid[], ${items.map((item) => new Date(item.at).toISOString())}::timestamptz[]) AS i(id, at)
          WHERE runs.id = i.id AND runs.status IN ('claimed', 'running') AND runs.deadline_at <= i.at
          RETURNING runs.*
        ),
        logged AS (${recordRunEvents(sql, { from: sql`done`, reason: timeoutReason, at: sql`done.ended_at` })})
        SELECT * FROM done`.pipe(Effect.orDie)
      yield* Effect.forEach(ended, (run) => events.publish(toRun(run)), { discard: true })
      yield* announced(ended)
      return ended
    }).pipe(hotSpan("Transitions.timeOutMany"))

  /**
   * The worker was revoked: its claimed and running runs end `timed_out`
   * with faultClass `infra` at once, with the follow-up of any time-out
   * (the retry when retries are left, the webhook). A run that ended
   * meanwhile is left out. Answers the runs it ended.
   */
  const timeOutRevoked = (workerId: string): Effect.Effect<ReadonlyArray<Terminal>> =>
    Effect.gen(function*() {
      const held = yield* sql<{ id: string }>`
        SELECT id FROM runs WHERE worker_id = ${workerId} AND ended_at IS NULL AND status IN ('claimed', 'running')`.pipe(
        Effect.orDie
      )
      if (held.length === 0) return []
      const runIds = held.map((row) => row.id)
      const now = yield* nowIso
      const ended = yield* terminal(
        sql<RunRow>`
          UPDATE runs SET ${timedOutSet(sql`${now}::timestamptz`, "infra")}
          WHERE id = ANY(${runIds}::uuid[]) AND worker_id = ${workerId} AND status IN ('claimed', 'running')
          RETURNING *`,
        "worker_revoked",
        now,
        { runIds, ids: runIds.map(() => uuidv7()) }
      )
      yield* Effect.forEach(ended, published, { discard: true })
      return ended
    }).pipe(Effect.withSpan("Transitions.timeOutRevoked", { attributes: { workerId } }))

  return { completeMany, timeOut, timeOutMany, timeOutRevoked } as const
}
