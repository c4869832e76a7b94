import type * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"

/**
 * Where a new run goes, as SQL over a `workers` row aliased `w`. Run
 * creation places a new run in its own statement with all of it
 * (`RunStore.createMany`); the assignment pass over queued runs
 * (`RunStore/Assignment`) reads each worker's load and eligibility with the
 * same expressions and takes places in the same order one run at a time
 * (`placeEach`: a pass takes up to `batchSize` runs of any trigger, pinned
 * or not, where the set-wise form would expand hundreds of places per worker).
 *
 * The rule: the trigger's pinned worker, else the least-loaded worker of the
 * environment that takes new runs, workers in touch before quiet ones, none
 * with `maxAssignedPerWorker` unclaimed runs. Spread over several runs as one
 * at a time would be: a worker's k-th free place (k from 0) costs
 * `load.active + k`, and the n-th run takes the n-th place in `placeOrder`.
 */

/** The scheduler's settings the rule reads (see `Config/Tuning`). */
export interface PlacementRules {
  readonly workerOfflineAfterSeconds: number
  readonly maxAssignedPerWorker: number
  /** Workers seen within this many seconds are preferred (see `Tuning.activeWorkerSeconds`). */
  readonly activeWorkerSeconds: number
}

/** `load.active`: runs the worker holds (assigned, claimed, running); `load.waiting`: those not yet claimed. */
export const workerLoad = (sql: SqlClient.SqlClient) =>
  sql`CROSS JOIN LATERAL (
    SELECT count(*)::int AS active, (count(*) FILTER (WHERE a.status = 'assigned'))::int AS waiting
    FROM runs a WHERE a.worker_id = w.id AND a.ended_at IS NULL AND a.status IN ('assigned', 'claimed', 'running')
  ) load`

/**
 * Seen within the last `activeSeconds` at `now`: polling (a waiting poll
 * refreshes it, see `Presence`) or otherwise in touch, so preferred for new runs.
 */
export const workerActive = (sql: SqlClient.SqlClient, now: string, activeSeconds: number) =>
  sql`w.last_seen_at > ${now}::timestamptz - ${activeSeconds}::int * interval '1 second'`

/** Seen within the offline threshold at `now` (the worker list and the dashboard read it too). */
export const workerOnline = (sql: SqlClient.SqlClient, now: string, offlineAfterSeconds: number) =>
  sql`w.last_seen_at > ${now}::timestamptz - ${offlineAfterSeconds}::int * interval '1 second'`

/**
 * May be given new runs: online, not draining (a draining worker finishes
 * what it holds and gets nothing more) and not revoked. A run handed to a
 * waiting poll is placed by run creation, so no path hands a new run to a
 * draining worker.
 */
export const workerTakesNewRuns = (sql: SqlClient.SqlClient, now: string, offlineAfterSeconds: number) =>
  sql`${workerOnline(sql, now, offlineAfterSeconds)} AND NOT w.draining AND w.revoked_at IS NULL`

/**
 * The `wanted` cheapest free places of the workers `w` that take new runs,
 * joined after `from` (which binds `w`; it may bind more, for `where`):
 * `id`, `environment_id`, `k` (the place's index on its worker), `cost`,
 * `recent` and `polling` (`polling`: a preferred worker among equals, e.g.
 * one whose poll waits here). Only the `wanted` first workers in place order
 * are expanded, each to at most `wanted` places: every worker ranked before
 * another has a first place at least as cheap as any of the other's, so no
 * later worker holds one of the `wanted` cheapest. Expanding every worker to
 * every free place cost a million rows, 1.4 s, with 10,000 online workers.
 */
export const freePlaces = (
  sql: SqlClient.SqlClient,
  now: string,
  rules: PlacementRules,
  options: {
    readonly from: Statement.Fragment
    readonly where?: Statement.Fragment | undefined
    readonly wanted: number
    readonly polling?: Statement.Fragment | undefined
  }
) =>
  sql`SELECT w.id, w.environment_id, w.active + k AS cost, k, w.recent, w.polling
    FROM (
      SELECT w.id, w.environment_id, load.active, load.waiting,
        ${workerActive(sql, now, rules.activeWorkerSeconds)} AS recent, ${options.polling ?? sql`false`} AS polling
      FROM ${options.from}
      ${workerLoad(sql)}
      WHERE ${workerTakesNewRuns(sql, now, rules.workerOfflineAfterSeconds)}
        AND load.waiting < ${rules.maxAssignedPerWorker}::int AND ${options.where ?? sql`true`}
      ORDER BY recent DESC, load.active, polling DESC, w.id
      LIMIT ${options.wanted}
    ) w
    CROSS JOIN LATERAL generate_series(0, LEAST(${rules.maxAssignedPerWorker}::int - w.waiting, ${options.wanted}::int) - 1) AS k`

/**
 * The order places are taken in, over `freePlaces`' columns: workers in
 * touch before quiet ones (registered, not polling), then the fewest active
 * runs (the contract's rule), then preferred workers, then the worker id.
 */
export const placeOrder = (sql: SqlClient.SqlClient) => sql`recent DESC, cost, polling DESC, id`

/** A queued run to place: its environment and its trigger's pinned worker, if any. */
export interface QueuedRun {
  readonly id: string
  readonly environment_id: string
  readonly pinned: string | null
}

/** A worker that takes new runs, with its load as read (`workerLoad`, `workerActive`). */
export interface LoadedWorker {
  readonly id: string
  /** Assigned, claimed or running: what "least loaded" compares. */
  active: number
  /** Assigned and not yet claimed: capped by `maxAssignedPerWorker`. */
  waiting: number
  /** Seen within `activeWorkerSeconds`: preferred over workers that are online but quiet. */
  readonly recent: boolean
}

/**
 * The rule applied one run at a time, in the order of `runs`, over the
 * loads read for the assignment pass (`workersByEnv`, counted up as places
 * are taken). Answers the runs placed and their workers, index by index; a
 * run with no eligible worker is left out.
 */
export const placeEach = (
  runs: ReadonlyArray<QueuedRun>,
  workersByEnv: ReadonlyMap<string, ReadonlyArray<LoadedWorker>>,
  maxAssignedPerWorker: number
): { readonly runIds: ReadonlyArray<string>; readonly workerIds: ReadonlyArray<string> } => {
  const runIds: Array<string> = []
  const workerIds: Array<string> = []
  for (const run of runs) {
    // A worker with a full page of unclaimed runs gets no more until it claims some.
    const workers = (workersByEnv.get(run.environment_id) ?? []).filter((w) => w.waiting < maxAssignedPerWorker)
    // Workers in touch first; quiet ones (registered, not polling) only when no other has room.
    const recent = workers.filter((w) => w.recent)
    const eligible = recent.length > 0 ? recent : workers
    const worker = run.pinned !== null
      ? workers.find((w) => w.id === run.pinned)
      : eligible.reduce<LoadedWorker | undefined>((best, w) => best === undefined || w.active < best.active ? w : best, undefined)
    if (worker === undefined) continue
    worker.active++
    worker.waiting++
    runIds.push(run.id)
    workerIds.push(worker.id)
  }
  return { runIds, workerIds }
}
