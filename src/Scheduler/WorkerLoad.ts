import type * as SqlClient from "@effect/sql/SqlClient"

/**
 * The scheduler's view of a worker, as SQL over a `workers` row aliased `w`,
 * shared by the assignment pass and run creation so both apply the same rules.
 */

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

/** Seen within the offline threshold at `now`. */
export const workerOnline = (sql: SqlClient.SqlClient, now: string, offlineAfterSeconds: number) =>
  sql`w.last_seen_at > ${now}::timestamptz - ${offlineAfterSeconds}::int * interval '1 second'`

/**
 * May be given new runs: online, not draining (a draining worker finishes
 * what it holds and gets nothing more) and not revoked. The assignment pass
 * and run creation's placement both use it, and a run handed to a waiting
 * poll is placed by run creation, so no path hands a new run to a draining
 * worker.
 */
export const workerTakesNewRuns = (sql: SqlClient.SqlClient, now: string, offlineAfterSeconds: number) =>
  sql`${workerOnline(sql, now, offlineAfterSeconds)} AND NOT w.draining AND w.revoked_at IS NULL`
