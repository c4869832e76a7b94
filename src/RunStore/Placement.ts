import type * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"

/**
 * Where a new run goes: the placement rule, declared once here and applied
 * in two ways. Run creation places its runs in its own statement, set-wise
 * in SQL (`freePlaces` taken in `placeOrder`, see `RunStore/SqlRunStore`); the
 * assignment pass (`RunStore/SqlRunStore`) reads each worker's load and
 * eligibility with the same SQL expressions and takes places one run at a
 * time in JavaScript (`placeEach`, comparing with `comparePlaces`): a pass
 * takes up to `batchSize` runs of any trigger, pinned or not, where the
 * set-wise form would expand hundreds of places per worker. Both forms read
 * the one `order` below, and a test checks they choose the same workers.
 *
 * The rule: the trigger's pinned worker, else the least-loaded worker of the
 * environment that takes new runs, workers in touch before quiet ones, none
 * with `maxAssignedPerWorker` unclaimed runs; among equals, one whose poll
 * waits, then the one given a run least recently (so an idle fleet takes
 * runs in turn rather than the lowest id taking them all). Spread over several runs as one
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
 * The newest run the worker was given, as text ('' for none): run ids are
 * UUIDv7, so this orders workers by when they last got a run (one probe of
 * `runs_worker` each). Compared byte-wise (`COLLATE "C"`), as JavaScript compares it.
 */
export const workerLastRun = (sql: SqlClient.SqlClient) =>
  sql`COALESCE((SELECT r.id::text FROM runs r WHERE r.worker_id = w.id ORDER BY r.id DESC LIMIT 1), '') COLLATE "C"`

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
 * `recent`, `polling` (a preferred worker among equals: one whose poll waits
 * here), `claimable` (its poll may be handed a run claimed: see
 * `RunStore/SqlRunStore`) and `last_run` (see `workerLastRun`). Only the `wanted` first workers in place order
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
    readonly claimable?: Statement.Fragment | undefined
  }
) =>
  sql`SELECT w.id, w.environment_id, w.active + k AS cost, k, w.recent, w.polling, w.claimable, w.last_run
    FROM (
      SELECT w.id, w.environment_id, load.active, load.waiting,
        ${workerActive(sql, now, rules.activeWorkerSeconds)} AS recent, ${options.polling ?? sql`false`} AS polling,
        ${options.claimable ?? sql`false`} AS claimable, ${workerLastRun(sql)} AS last_run
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
  /** Preferred among equals (a worker whose poll waits on this instance). */
  readonly polling: boolean
  /** The newest run it was given ('' for none): among equals, the one given a run least recently first. */
  readonly lastRun: string
  readonly id: string
}

/**
 * The order places are taken in, most preferred first: workers in touch
 * before quiet ones (registered, not polling), then the lowest cost (the
 * contract's "fewest active runs"), then preferred workers (a waiting poll),
 * then the one given a run least recently, then the worker id (a total
 * order, so both forms break ties alike: a uuid orders as its lowercase text does).
 */
const order: ReadonlyArray<{ readonly key: keyof Place; readonly descending: boolean }> = [
  { key: "recent", descending: true },
  { key: "cost", descending: false },
  { key: "polling", descending: true },
  { key: "lastRun", descending: false },
  { key: "id", descending: false }
]

/** `order` as an ORDER BY list, each key written as `columns` names it. */
const orderList = (columns: Record<keyof Place, string>) =>
  order.map(({ descending, key }) => `${columns[key]}${descending ? " DESC" : ""}`).join(", ")

// Both lists are fixed: written out once, at load.
const placesOrderList = orderList({ recent: "recent", cost: "cost", polling: "polling", lastRun: "last_run", id: "id" })
// A worker's first place (k = 0) costs its active runs.
const workersOrderList = orderList({ recent: "recent", cost: "load.active", polling: "polling", lastRun: "last_run", id: "w.id" })

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

/**
 * Flow control (docs/flow-control.md): runs whose trigger has a `limit`, a
 * `perKey` or a pool (`runs.flow_limited`) are placed by the limited
 * placement (`SqlRunStore`), which takes its candidates round-robin by
 * (trigger, key), oldest key first, and within a key in `withinKeyOrder`.
 */

/**
 * The order runs of one key are taken in (alias `q`): their queue rank
 * (`queueRank`: when available, less their priority), then request order
 * (run ids are UUIDv7). Fairness across keys stays above it.
 */
export const withinKeyOrder = "(COALESCE(q.queue_at, q.created_at), q.id)"

/** One candidate of the plan: a waiting run with the counts of every limit it holds. */
export interface CandidateRow {
  readonly run_id: string
  /** Its place in its key's queue (1: next). */
  readonly rank: number
  readonly trigger_id: string
  readonly pinned: string | null
  readonly concurrency_limit: number | null
  readonly concurrency_per_key: number | null
  readonly pool_id: string | null
  readonly pool_limit: number | null
  readonly used: number
  readonly pool_used: number
  readonly key: string
  readonly key_used: number
}

/** Room left under a limit: null limit = unbounded. */
const room = (limit: number | null, used: number): number => limit === null ? Infinity : limit - used

/**
 * Chooses, in fair order, the candidates every limit has room for and a
 * worker takes (the placement rule of `RunStore/Placement`, one run at a
 * time, as the assignment pass applies it). Pure: the counts and loads are
 * as read under the lock and counted up here as places are taken.
 */
export const placeFairly = (
  candidates: ReadonlyArray<CandidateRow>,
  workers: ReadonlyArray<LoadedWorker>,
  maxAssignedPerWorker: number
): { readonly runIds: ReadonlyArray<string>; readonly workerIds: ReadonlyArray<string> } => {
  const byTrigger = new Map<string, number>()
  const byKey = new Map<string, number>()
  const byPool = new Map<string, number>()
  const runIds: Array<string> = []
  const workerIds: Array<string> = []
  const fair = [...candidates].sort((a, b) => a.rank - b.rank || (a.run_id < b.run_id ? -1 : a.run_id > b.run_id ? 1 : 0))
  for (const c of fair) {
    const keyId = `${c.trigger_id}\u0000${c.key}`
    const tUsed = byTrigger.get(c.trigger_id) ?? c.used
    const kUsed = byKey.get(keyId) ?? c.key_used
    const pUsed = c.pool_id === null ? 0 : byPool.get(c.pool_id) ?? c.pool_used
    if (room(c.concurrency_limit, tUsed) <= 0 || room(c.concurrency_per_key, kUsed) <= 0) continue
    if (c.pool_id !== null && room(c.pool_limit, pUsed) <= 0) continue
    let worker: LoadedWorker | undefined
    for (const w of workers) {
      if (w.waiting >= maxAssignedPerWorker || (c.pinned !== null && w.id !== c.pinned)) continue
      if (worker === undefined || comparePlaces(w, worker) < 0) worker = w
    }
    if (worker === undefined) continue
    worker.cost++
    worker.waiting++
    byTrigger.set(c.trigger_id, tUsed + 1)
    byKey.set(keyId, kUsed + 1)
    if (c.pool_id !== null) byPool.set(c.pool_id, pUsed + 1)
    runIds.push(c.run_id)
    workerIds.push(worker.id)
  }
  return { runIds, workerIds }
}


/** The scheduler's settings the wait reasons read (see `Config/Tuning`). */
export interface WaitRules {
  readonly workerOfflineAfterSeconds: number
  readonly maxAssignedPerWorker: number
}

/** A run holds a place: placed on a worker and not ended (assigned, claimed, running). */
const holdsPlace = (alias: string) => `${alias}.worker_id IS NOT NULL AND ${alias}.ended_at IS NULL AND ${alias}.flow_limited`

/**
 * Why a queued run waits, as of `now`: a LEFT JOIN LATERAL onto the runs
 * aliased `r`, adding `wait_reason` and `wait_pool` (null for a run that is
 * not queued: the lateral subquery's condition on `r` is a one-time filter, so
 * nothing else is read for it).
 *
 * ONE CASE lists the reasons in the order they are checked, the first that
 * holds being the answer: what no placement can change first (the pinned
 * worker, any worker at all), then the limits the run holds (its trigger's,
 * its key's, its pool's: the counts the limited placement checks, read the
 * same way), then room on the workers that may take it. Flow control II's
 * time-based reasons come first (`delayed`, `retry_backoff`: the run waits for its `availableAt`). None holding: the run
 * is being placed (the next assignment pass takes it), and the answer is null.
 */
export const waitReasonJoin = (sql: SqlClient.SqlClient, now: string, rules: WaitRules): Statement.Fragment =>
  sql`LEFT JOIN LATERAL (
    SELECT x.reason AS wait_reason, CASE WHEN x.reason = 'pool_limit' THEN x.pool_name END AS wait_pool
    FROM (
      SELECT CASE
        WHEN r.delayed AND r.retry_of_run_id IS NULL THEN 'delayed'
        WHEN r.delayed THEN 'retry_backoff'
        WHEN t.worker_id IS NOT NULL AND NOT EXISTS (
          SELECT 1 FROM workers w WHERE w.id = t.worker_id AND w.revoked_at IS NULL
            AND ${workerOnline(sql, now, rules.workerOfflineAfterSeconds)}) THEN 'pinned_worker_offline'
        WHEN t.worker_id IS NOT NULL AND EXISTS (
          SELECT 1 FROM workers w WHERE w.id = t.worker_id AND w.draining) THEN 'pinned_worker_draining'
        WHEN t.worker_id IS NULL AND NOT EXISTS (
          SELECT 1 FROM workers w WHERE w.environment_id = r.environment_id
            AND ${workerTakesNewRuns(sql, now, rules.workerOfflineAfterSeconds)}) THEN 'no_worker_online'
        WHEN r.flow_limited AND t.concurrency_limit IS NOT NULL AND t.concurrency_limit <= (
          SELECT count(*) FROM runs h WHERE h.trigger_id = t.id AND ${sql.literal(holdsPlace("h"))}) THEN 'trigger_limit'
        WHEN r.flow_limited AND t.concurrency_per_key IS NOT NULL AND t.concurrency_per_key <= (
          SELECT count(*) FROM runs h WHERE h.trigger_id = t.id AND h.concurrency_key = r.concurrency_key
            AND ${sql.literal(holdsPlace("h"))}) THEN 'key_limit'
        WHEN r.flow_limited AND p.id IS NOT NULL AND p."limit" <= (
          SELECT count(*) FROM triggers pt JOIN runs h ON h.trigger_id = pt.id AND ${sql.literal(holdsPlace("h"))}
          WHERE pt.concurrency_pool_id = p.id) THEN 'pool_limit'
        WHEN NOT EXISTS (
          SELECT 1 FROM workers w ${workerLoad(sql)}
          WHERE w.environment_id = r.environment_id AND (t.worker_id IS NULL OR w.id = t.worker_id)
            AND ${workerTakesNewRuns(sql, now, rules.workerOfflineAfterSeconds)}
            AND load.waiting < ${rules.maxAssignedPerWorker}::int) THEN 'workers_full'
      END AS reason, p.name AS pool_name
      FROM triggers t LEFT JOIN concurrency_pools p ON p.id = t.concurrency_pool_id
      WHERE t.id = r.trigger_id AND r.worker_id IS NULL AND r.ended_at IS NULL
    ) x
  ) wr ON true`

/**
 * Queued runs by environment and wait reason (`/metrics`' `pts_runs_waiting`).
 * A queued run's reason depends on its trigger and key only (and the
 * environment's workers), so it is computed once per group of them.
 */
export const waitingByReason = (sql: SqlClient.SqlClient, now: string, rules: WaitRules) =>
  sql<{ environment_id: string; reason: string; n: number }>`
    SELECT r.environment_id, wr.wait_reason AS reason, sum(r.n)::int AS n
    FROM (
      SELECT environment_id, trigger_id, concurrency_key, flow_limited, delayed,
        CASE WHEN retry_of_run_id IS NULL THEN NULL ELSE environment_id END AS retry_of_run_id, count(*) AS n,
        NULL::uuid AS worker_id, NULL::timestamptz AS ended_at
      FROM runs WHERE worker_id IS NULL AND ended_at IS NULL
      GROUP BY environment_id, trigger_id, concurrency_key, flow_limited, delayed, retry_of_run_id IS NULL
    ) r ${waitReasonJoin(sql, now, rules)}
    WHERE wr.wait_reason IS NOT NULL
    GROUP BY r.environment_id, wr.wait_reason`

/**
 * A queued run's place in the queue: when it became available (or was
 * requested) less its priority in seconds (`runs.queue_at`, null when that is
 * `created_at`). Ready runs are taken in this order, then by id; the
 * `runs_queued` index holds the same expression.
 */
export const queueRank = (sql: SqlClient.SqlClient, alias: string) =>
  sql.literal(`COALESCE(${alias}.queue_at, ${alias}.created_at)`)
