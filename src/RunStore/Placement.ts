import type * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"

/**
 * Where a new run goes: the placement rule, declared once here and applied
 * in two ways. Run creation places its runs in its own statement, set-wise
 * in SQL (`freePlaces` taken in `placeOrder`, see `RunStore/Creation`); the
 * assignment pass (`RunStore/Assignment`) reads each worker's load and
 * eligibility with the same SQL expressions and takes places one run at a
 * time in JavaScript (`placeEach`, comparing with `comparePlaces`): a pass
 * takes up to `batchSize` runs of any trigger, pinned or not, where the
 * set-wise form would expand hundreds of places per worker. Both forms read
 * the one `order` below, and a test checks they choose the same workers.
 *
 * The rule: the trigger's pinned worker, else the least-loaded worker of the
 * environment that takes new runs, workers in touch before quiet ones, none
 * with `maxAssignedPerWorker` unclaimed runs. Spread over several runs as one
 * at a time would be: a worker's k-th free place (k from 0) costs
 * `load.active + k`, and the n-th run takes the n-th place in `order`.
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
 * every free place would cost a row per free place: a million with 10,000
 * online workers.
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
      -- Workers by their first place (k = 0: cost = load.active).
      ORDER BY ${sql.literal(workersOrderList)}
      LIMIT ${options.wanted}
    ) w
    CROSS JOIN LATERAL generate_series(0, LEAST(${rules.maxAssignedPerWorker}::int - w.waiting, ${options.wanted}::int) - 1) AS k`

/** A free place as the rule compares it (the columns `freePlaces` answers). */
export interface Place {
  /** Seen within `activeWorkerSeconds`: in touch (polling), preferred over quiet workers. */
  readonly recent: boolean
  /** The worker's active runs, plus the places already taken on it (`k`). */
  readonly cost: number
  /** Preferred among equals (a worker whose claim poll waits on this instance). */
  readonly polling: boolean
  readonly id: string
}

/**
 * The order places are taken in, most preferred first: workers in touch
 * before quiet ones (registered, not polling), then the lowest cost (the
 * contract's "fewest active runs"), then preferred workers, then the worker
 * id (a total order, so both forms break ties alike: a uuid orders as its
 * lowercase text does).
 */
const order: ReadonlyArray<{ readonly key: keyof Place; readonly descending: boolean }> = [
  { key: "recent", descending: true },
  { key: "cost", descending: false },
  { key: "polling", descending: true },
  { key: "id", descending: false }
]

/** `order` as an ORDER BY list, each key written as `columns` names it. */
const orderList = (columns: Record<keyof Place, string>) =>
  order.map(({ descending, key }) => `${columns[key]}${descending ? " DESC" : ""}`).join(", ")

// Both lists are fixed: written out once, at load.
const placesOrderList = orderList({ recent: "recent", cost: "cost", polling: "polling", id: "id" })
// A worker's first place (k = 0) costs its active runs.
const workersOrderList = orderList({ recent: "recent", cost: "load.active", polling: "polling", id: "w.id" })

/** `order` over `freePlaces`' columns. */
export const placeOrder = (sql: SqlClient.SqlClient) => sql.literal(placesOrderList)

/** `order` as a comparator: negative when `a` is taken before `b`. */
export const comparePlaces = (a: Place, b: Place): number => {
  for (const { descending, key } of order) {
    const x = a[key]
    const y = b[key]
    if (x !== y) return (x < y ? -1 : 1) * (descending ? -1 : 1)
  }
  return 0
}

/** A queued run to place: its environment and its trigger's pinned worker, if any. */
export interface QueuedRun {
  readonly id: string
  readonly environment_id: string
  readonly pinned: string | null
}

/** A worker that takes new runs, with its load as read (`workerLoad`, `workerActive`). */
export interface LoadedWorker extends Place {
  /** Its next free place's cost: runs it holds (assigned, claimed, running), counted up as places are taken. */
  cost: number
  /** Assigned and not yet claimed: capped by `maxAssignedPerWorker`. */
  waiting: number
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
    let worker: LoadedWorker | undefined
    for (const w of workersByEnv.get(run.environment_id) ?? []) {
      // A worker with a full page of unclaimed runs gets no more until it claims some (as `freePlaces`).
      if (w.waiting >= maxAssignedPerWorker || (run.pinned !== null && w.id !== run.pinned)) continue
      if (worker === undefined || comparePlaces(w, worker) < 0) worker = w
    }
    if (worker === undefined) continue
    worker.cost++
    worker.waiting++
    runIds.push(run.id)
    workerIds.push(worker.id)
  }
  return { runIds, workerIds }
}
