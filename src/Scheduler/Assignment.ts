import * as SqlClient from "@effect/sql/SqlClient"
import type { Fragment as SqlFragment } from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import { Tuning } from "../Config/Tuning.js"
import { nowIso } from "../Domain/Time.js"
import { assignedChannel, Wakeups } from "./Wakeups.js"
import { workerActive, workerLoad, workerTakesNewRuns } from "../Runs/Placement.js"
import { hotSpan } from "../Config/Tracing.js"
import { recordRunEvents } from "../Runs/RunTimeline.js"
import { RunFeed } from "./RunFeed.js"

/** A run that was just given a claim deadline, for the supervisor. */
export interface Deadline {
  readonly id: string
  readonly environment_id: string
  readonly deadline_at: Date
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

interface OnlineWorker {
  readonly id: string
  /** Assigned, claimed or running: what "least loaded" compares. */
  active: number
  /** Assigned and not yet claimed: capped by `maxAssignedPerWorker`. */
  waiting: number
  /** Seen within `activeWorkerSeconds`: preferred over workers that are online but quiet. */
  readonly recent: boolean
}

/**
 * Moves runs between `queued` and `assigned`. Every change is a conditional
 * UPDATE under `FOR UPDATE SKIP LOCKED`, so two instances assigning at once
 * never hand one run out twice.
 */
export class Assignment extends Effect.Service<Assignment>()("Scheduler/Assignment", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const config = yield* Tuning
    const wakeups = yield* Wakeups
    const feed = yield* RunFeed

    /**
     * Assigns queued runs (of one environment, or of all) to the trigger's
     * pinned worker when it is online, else to the online worker with the
     * fewest active runs; a draining or revoked worker gets none
     * (`workerTakesNewRuns`). Runs with no eligible worker stay queued until a
     * worker polls. Answers the runs assigned.
     *
     * It runs on every poll and every new run, so it is built for round trips,
     * not transactions: one read when nothing is queued (the common case);
     * otherwise that read (the candidates and the online workers of their
     * environments together) and ONE conditional UPDATE for the whole batch. Nothing is locked while the
     * plan is made: the UPDATE only takes runs still `queued`, so when two
     * assigners pick the same run it is handed out once and the other skips it.
     */
    const assignQueued = (environmentId?: string): Effect.Effect<ReadonlyArray<Deadline>> =>
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
          // reading a page of runs nobody can take was most of this pass).
          // Nor are its workers read when nothing is queued there (one index
          // probe, evaluated once): an idle fleet's every poll asks, and
          // reading 10,000 idle workers with their load for each was most of
          // a poll's cost.
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
        const workersByEnv = new Map<string, Array<OnlineWorker>>()
        for (const w of rows) {
          if (w.kind !== "worker") continue
          const list = workersByEnv.get(w.environment_id) ?? []
          list.push({ id: w.id, active: w.active, waiting: w.waiting, recent: w.recent })
          workersByEnv.set(w.environment_id, list)
        }
        // The placement rule of `Runs/Placement`, applied one run at a time
        // over the loads just read. Run creation applies it set-wise in SQL
        // (a worker's k-th free place costs active + k): that form costs a
        // row per free place, 1,000,000 places with 10,000 workers, too many
        // for a pass that can take runs of any trigger and environment.
        const runIds: Array<string> = []
        const workerIds: Array<string> = []
        for (const run of queued) {
          // A worker with a full page of unclaimed runs gets no more until it claims some.
          const workers = (workersByEnv.get(run.environment_id) ?? []).filter((w) => w.waiting < config.maxAssignedPerWorker)
          // Workers in touch first; quiet ones (registered, not polling) only when no other has room.
          const recent = workers.filter((w) => w.recent)
          const eligible = recent.length > 0 ? recent : workers
          const worker = run.pinned !== null
            ? workers.find((w) => w.id === run.pinned)
            : eligible.reduce<OnlineWorker | undefined>((best, w) => best === undefined || w.active < best.active ? w : best, undefined)
          if (worker === undefined) continue
          worker.active++
          worker.waiting++
          runIds.push(run.id)
          workerIds.push(worker.id)
        }
        if (runIds.length === 0) return []
        // pg_notify in the same statement is delivered at its commit, so other
        // instances' pollers wake only once the assignment is visible; Postgres
        // folds identical notifications of one transaction into one.
        const assigned = yield* sql<Deadline & { worker_id: string }>`
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
        yield* Effect.forEach(new Set(assigned.map((r) => r.worker_id)), wakeups.wake, { discard: true })
        yield* feed.announce(new Set(assigned.map((r) => r.environment_id)))
        if (assigned.length > 0) yield* Effect.logDebug("runs assigned").pipe(Effect.annotateLogs({ count: assigned.length }))
        return assigned.map(({ deadline_at, environment_id, id }) => ({ id, environment_id, deadline_at }))
      }).pipe(Effect.orDie, hotSpan("Assignment.assignQueued"))

    /** Claim timeout: an assigned run past its deadline goes back to `queued`. */
    const releaseExpired = (runId: string): Effect.Effect<string | undefined> =>
      Effect.gen(function*() {
        const now = yield* nowIso
        // The timeline names the worker that let the claim deadline pass (read
        // from the row as it was, through the self-join).
        const rows = yield* sql<{ environment_id: string }>`
          WITH released AS (
            UPDATE runs SET status = 'queued', worker_id = NULL, assigned_at = NULL, deadline_at = NULL
            FROM runs old
            WHERE runs.id = ${runId} AND old.id = runs.id AND runs.status = 'assigned' AND runs.deadline_at <= ${now}::timestamptz
            RETURNING runs.id, runs.environment_id, runs.status, old.worker_id AS worker_id
          ),
          logged AS (${recordRunEvents(sql, { from: sql`released`, reason: "claim_timeout", at: now })})
          SELECT environment_id FROM released`
        yield* feed.announce(rows.map((r) => r.environment_id))
        return rows[0]?.environment_id
      }).pipe(Effect.orDie, hotSpan("Assignment.releaseExpired"))

    /** Runs assigned to workers that went offline go back to `queued`; answers their environments. */
    const releaseOffline: Effect.Effect<ReadonlyArray<string>> = Effect.gen(function*() {
      const now = yield* nowIso
      const rows = yield* sql<{ id: string; environment_id: string }>`
        WITH released AS (
          UPDATE runs r SET status = 'queued', worker_id = NULL, assigned_at = NULL, deadline_at = NULL
          FROM workers w
          WHERE r.worker_id = w.id AND r.ended_at IS NULL AND r.status = 'assigned'
            AND w.last_seen_at <= ${now}::timestamptz - ${config.workerOfflineAfterSeconds}::int * interval '1 second'
          RETURNING r.id, r.environment_id, r.status, w.id AS worker_id
        ),
        logged AS (${recordRunEvents(sql, { from: sql`released`, reason: "released", at: now })})
        SELECT id, environment_id FROM released`
      if (rows.length > 0) yield* Effect.logInfo("runs of offline workers released").pipe(Effect.annotateLogs({ count: rows.length }))
      const environments = [...new Set(rows.map((r) => r.environment_id))]
      yield* feed.announce(environments)
      return environments
    }).pipe(Effect.orDie, hotSpan("Assignment.releaseOffline"))

    /** A revoked worker's assigned runs go back to `queued`; answers them. */
    const releaseWorker = (workerId: string): Effect.Effect<ReadonlyArray<{ readonly id: string; readonly environment_id: string }>> =>
      Effect.gen(function*() {
        const now = yield* nowIso
        // The timeline names the worker the run was taken from.
        return yield* sql<{ id: string; environment_id: string }>`
          WITH released AS (
            UPDATE runs SET status = 'queued', worker_id = NULL, assigned_at = NULL, deadline_at = NULL
            WHERE worker_id = ${workerId} AND ended_at IS NULL AND status = 'assigned'
            RETURNING id, environment_id, status
          ),
          logged AS (${recordRunEvents(sql, { from: sql`released`, reason: "released", at: now, workerId: sql`${workerId}::uuid` })})
          SELECT id, environment_id FROM released`
      }).pipe(Effect.orDie, Effect.withSpan("Assignment.releaseWorker"))

    /**
     * A run claimed in its creating statement for a poll that went away
     * before it could be handed over: back to `assigned` to that worker, as
     * if the claim had never happened (its next poll takes it). Answers the
     * new claim deadline, or undefined when the run has moved on meanwhile.
     */
    const unclaim = (runId: string, workerId: string): Effect.Effect<Date | undefined> =>
      Effect.gen(function*() {
        const now = yield* nowIso
        // On the timeline the run is assigned to the worker again.
        const rows = yield* sql<{ deadline_at: Date; environment_id: string }>`
          WITH moved AS (
            UPDATE runs SET status = 'assigned', claimed_at = NULL,
              deadline_at = ${now}::timestamptz + ${config.claimTimeoutSeconds}::int * interval '1 second'
            WHERE id = ${runId} AND worker_id = ${workerId} AND status = 'claimed'
            RETURNING *
          ),
          logged AS (${recordRunEvents(sql, { from: sql`moved`, reason: "assigned", at: now })})
          SELECT deadline_at, environment_id FROM moved`
        yield* feed.announce(rows.map((r) => r.environment_id))
        return rows[0]?.deadline_at
      }).pipe(Effect.orDie, hotSpan("Assignment.unclaim"))

    return { assignQueued, releaseExpired, releaseOffline, releaseWorker, unclaim } as const
  })
}) {}
