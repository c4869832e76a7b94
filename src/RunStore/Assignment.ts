import type * as SqlClient from "@effect/sql/SqlClient"
import type { Fragment as SqlFragment } from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import type { TuningShape } from "../Config/Tuning.js"
import { nowIso } from "../Domain/Time.js"
import { type LoadedWorker, placeEach, workerActive, workerLoad, workerTakesNewRuns } from "./Placement.js"
import { recordRunEvents } from "./RunEvents.js"

/** Postgres channel carrying the id of a worker that was just given runs (its waiting polls listen, see `Scheduler/Wakeups`). */
export const assignedChannel = "pts_run_assigned"

/** A run that was just given a claim deadline, for the supervisor. */
export interface Deadline {
  readonly id: string
  readonly environment_id: string
  readonly deadline_at: Date
}

/** A run the assignment pass just assigned, and to which worker. */
export interface Assigned extends Deadline {
  readonly worker_id: string
}

/** A row of the planning query: a queued run (with its pinned worker) or an online worker (with its load). */
interface PlanRow {
  readonly kind: "run" | "worker"
  readonly id: string
  readonly environment_id: string
  readonly pinned: string | null
  readonly active: number
  readonly waiting: number
  readonly recent: boolean
}

/**
 * The assignment pass: queued runs to `assigned` (runs going back to
 * `queued` are `Releases`').
 */
export const make = (sql: SqlClient.SqlClient, config: TuningShape) => {
  /**
   * Assigns queued runs (of one environment, or of all) to the trigger's
   * pinned worker when it is online, else to the online worker with the
   * fewest active runs; a draining or revoked worker gets none
   * (`workerTakesNewRuns`). Runs with no eligible worker stay queued until a
   * worker polls. Answers the runs assigned, with their workers.
   *
   * It runs on every poll and every new run, so it is built for round trips,
   * not transactions: one read when nothing is queued (the common case);
   * otherwise that read (the candidates and the online workers of their
   * environments together) and ONE conditional UPDATE for the whole batch.
   * Nothing is locked while the plan is made: the UPDATE only takes runs
   * still `queued`, so when two assigners pick the same run it is handed out
   * once and the other skips it.
   */
  const assignQueued = (environmentId?: string): Effect.Effect<ReadonlyArray<Assigned>> =>
    Effect.gen(function*() {
      const now = yield* nowIso
      // The candidates (oldest first) and the online workers of their
      // environments, in one round trip.
      const online = sql`
            SELECT w.id, w.environment_id, load.active, load.waiting,
              ${workerActive(sql, now, config.activeWorkerSeconds)} AS recent
            FROM workers w ${workerLoad(sql)}
            WHERE ${workerTakesNewRuns(sql, now, config.workerOfflineAfterSeconds)}`
      const candidates = (scope: SqlFragment) => sql`
            SELECT r.id, r.environment_id, t.worker_id AS pinned
            FROM runs r JOIN triggers t ON t.id = r.trigger_id
            WHERE r.worker_id IS NULL AND r.ended_at IS NULL AND r.status = 'queued' AND ${scope}
            ORDER BY r.id
            LIMIT ${config.batchSize}`
      const rows = yield* (environmentId === undefined
        ? sql<PlanRow>`
          WITH c AS (${candidates(sql`true`)}),
          w AS (${online} AND w.environment_id IN (SELECT environment_id FROM c))
          SELECT 'run' AS kind, id, environment_id, pinned, 0 AS active, 0 AS waiting, false AS recent FROM c
          UNION ALL
          SELECT 'worker' AS kind, id, environment_id, NULL::uuid, active, waiting, recent FROM w
          ORDER BY kind, id`
        // One environment (a poll, a new run): its workers first, and no
        // candidates are read when none of them has room (under a backlog,
        // a page of runs nobody can take would be read for nothing). Nor
        // are its workers read when nothing is queued there (one index
        // probe, evaluated once): an idle fleet's every poll asks, and every
        // worker with its load, read for each, would be most of a poll's cost.
        : sql<PlanRow>`
          WITH w AS (${online} AND w.environment_id = ${environmentId} AND EXISTS (
            SELECT 1 FROM runs q WHERE q.environment_id = ${environmentId} AND q.worker_id IS NULL AND q.ended_at IS NULL AND q.status = 'queued')),
          c AS (${
          candidates(sql`r.environment_id = ${environmentId}
              AND EXISTS (SELECT 1 FROM w WHERE w.waiting < ${config.maxAssignedPerWorker})`)
        })
          SELECT 'run' AS kind, id, environment_id, pinned, 0 AS active, 0 AS waiting, false AS recent FROM c
          UNION ALL
          SELECT 'worker' AS kind, id, environment_id, NULL::uuid, active, waiting, recent FROM w
          ORDER BY kind, id`)
      const queued = rows.filter((r) => r.kind === "run")
      if (queued.length === 0) return []
      const workersByEnv = new Map<string, Array<LoadedWorker>>()
      for (const w of rows) {
        if (w.kind !== "worker") continue
        const list = workersByEnv.get(w.environment_id) ?? []
        list.push({ id: w.id, cost: w.active, waiting: w.waiting, recent: w.recent, polling: false })
        workersByEnv.set(w.environment_id, list)
      }
      // The placement rule of `RunStore/Placement`, applied one run at a time
      // over the loads just read. Run creation applies it set-wise in SQL
      // (a worker's k-th free place costs active + k): that form costs a
      // row per free place, 1,000,000 places with 10,000 workers, too many
      // for a pass that can take runs of any trigger and environment.
      const { runIds, workerIds } = placeEach(queued, workersByEnv, config.maxAssignedPerWorker)
      if (runIds.length === 0) return []
      // pg_notify in the same statement is delivered at its commit, so other
      // instances' pollers wake only once the assignment is visible; Postgres
      // folds identical notifications of one transaction into one.
      return yield* sql<Assigned>`
          WITH plan AS (
            SELECT * FROM unnest(${runIds}::uuid[], ${workerIds}::uuid[]) AS p(run_id, worker_id)
          ), moved AS (
            UPDATE runs SET status = 'assigned', worker_id = plan.worker_id, assigned_at = ${now}::timestamptz,
              deadline_at = ${now}::timestamptz + ${config.claimTimeoutSeconds}::int * interval '1 second'
            FROM plan
            WHERE runs.id = plan.run_id AND runs.status = 'queued'
            RETURNING runs.id, runs.environment_id, runs.status, runs.worker_id, runs.deadline_at
          ),
          logged AS (${recordRunEvents(sql, { from: sql`moved`, reason: "assigned", at: now })})
          SELECT moved.id, moved.environment_id, moved.worker_id, moved.deadline_at, pg_notify(${assignedChannel}, moved.worker_id::text) FROM moved ORDER BY moved.id`
    }).pipe(Effect.orDie)

  return { assignQueued } as const
}
