import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { SchedulerConfig } from "./SchedulerConfig.js"
import { nowIso } from "./Time.js"
import { assignedChannel, Wakeups } from "./Wakeups.js"

/** A run that was just given a claim deadline, for the supervisor. */
export interface Deadline {
  readonly id: string
  readonly environment_id: string
  readonly deadline_at: Date
}

interface Candidate {
  readonly id: string
  readonly environment_id: string
  readonly pinned: string | null
}

interface OnlineWorker {
  readonly id: string
  active: number
}

/**
 * Moves runs between `queued` and `assigned`. Every change is a conditional
 * UPDATE under `FOR UPDATE SKIP LOCKED`, so two instances assigning at once
 * never hand one run out twice.
 */
export class Assignment extends Effect.Service<Assignment>()("Scheduler/Assignment", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const config = yield* SchedulerConfig
    const wakeups = yield* Wakeups

    const onlineWorkers = (environmentId: string, now: string) =>
      sql<{ id: string; active: number }>`
        SELECT w.id,
               (SELECT count(*) FROM runs a
                 WHERE a.worker_id = w.id AND a.status IN ('assigned', 'claimed', 'running'))::int AS active
        FROM workers w
        WHERE w.environment_id = ${environmentId}
          AND w.last_seen_at > ${now}::timestamptz - ${config.workerOfflineAfterSeconds}::int * interval '1 second'
        ORDER BY w.id`

    /**
     * Assigns queued runs (of one environment, or of all) to the trigger's
     * pinned worker when it is online, else to the online worker with the
     * fewest active runs. Runs with no eligible worker stay queued until a
     * worker polls. Answers the runs assigned.
     */
    const assignQueued = (environmentId?: string): Effect.Effect<ReadonlyArray<Deadline>> =>
      Effect.gen(function*() {
        const now = yield* nowIso
        const assigned = yield* Effect.gen(function*() {
          const candidates = yield* sql<Candidate>`
            SELECT r.id, r.environment_id, t.worker_id AS pinned
            FROM runs r JOIN triggers t ON t.id = r.trigger_id
            WHERE r.status = 'queued' ${environmentId === undefined ? sql`` : sql`AND r.environment_id = ${environmentId}`}
            ORDER BY r.id
            LIMIT ${config.batchSize}
            FOR UPDATE OF r SKIP LOCKED`
          if (candidates.length === 0) return []
          const workersByEnv = new Map<string, Array<OnlineWorker>>()
          const out: Array<Deadline & { readonly worker_id: string }> = []
          for (const run of candidates) {
            let workers = workersByEnv.get(run.environment_id)
            if (workers === undefined) {
              workers = (yield* onlineWorkers(run.environment_id, now)).map((w) => ({ id: w.id, active: w.active }))
              workersByEnv.set(run.environment_id, workers)
            }
            const worker = run.pinned !== null
              ? workers.find((w) => w.id === run.pinned)
              : workers.reduce<OnlineWorker | undefined>((best, w) => best === undefined || w.active < best.active ? w : best, undefined)
            if (worker === undefined) continue
            const rows = yield* sql<Deadline & { worker_id: string }>`
              UPDATE runs SET status = 'assigned', worker_id = ${worker.id}, assigned_at = ${now}::timestamptz,
                deadline_at = ${now}::timestamptz + ${config.claimTimeoutSeconds}::int * interval '1 second'
              WHERE id = ${run.id} AND status = 'queued'
              RETURNING id, environment_id, worker_id, deadline_at`
            if (rows[0] === undefined) continue
            worker.active++
            out.push(rows[0])
          }
          // NOTIFY inside the transaction is delivered at commit: other
          // instances' pollers wake only once the assignment is visible.
          for (const workerId of new Set(out.map((r) => r.worker_id))) {
            yield* sql`SELECT pg_notify(${assignedChannel}, ${workerId})`
          }
          return out
        }).pipe(sql.withTransaction)
        yield* Effect.forEach(new Set(assigned.map((r) => r.worker_id)), wakeups.wake, { discard: true })
        if (assigned.length > 0) yield* Effect.logDebug("runs assigned", { count: assigned.length })
        return assigned
      }).pipe(Effect.orDie, Effect.withSpan("Assignment.assignQueued"))

    /** Claim timeout: an assigned run past its deadline goes back to `queued`. */
    const releaseExpired = (runId: string): Effect.Effect<string | undefined> =>
      Effect.gen(function*() {
        const now = yield* nowIso
        const rows = yield* sql<{ environment_id: string }>`
          UPDATE runs SET status = 'queued', worker_id = NULL, assigned_at = NULL, deadline_at = NULL
          WHERE id = ${runId} AND status = 'assigned' AND deadline_at <= ${now}::timestamptz
          RETURNING environment_id`
        return rows[0]?.environment_id
      }).pipe(Effect.orDie, Effect.withSpan("Assignment.releaseExpired"))

    /** Runs assigned to workers that went offline go back to `queued`; answers their environments. */
    const releaseOffline: Effect.Effect<ReadonlyArray<string>> = Effect.gen(function*() {
      const now = yield* nowIso
      const rows = yield* sql<{ id: string; environment_id: string }>`
        UPDATE runs r SET status = 'queued', worker_id = NULL, assigned_at = NULL, deadline_at = NULL
        FROM workers w
        WHERE r.worker_id = w.id AND r.status = 'assigned'
          AND w.last_seen_at <= ${now}::timestamptz - ${config.workerOfflineAfterSeconds}::int * interval '1 second'
        RETURNING r.id, r.environment_id`
      if (rows.length > 0) yield* Effect.logInfo("runs of offline workers released", { count: rows.length })
      return [...new Set(rows.map((r) => r.environment_id))]
    }).pipe(Effect.orDie, Effect.withSpan("Assignment.releaseOffline"))

    return { assignQueued, releaseExpired, releaseOffline } as const
  })
}) {}
