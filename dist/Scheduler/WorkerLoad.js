/**
 * The scheduler's view of a worker, as SQL over a `workers` row aliased `w`,
 * shared by the assignment pass and run creation so both apply the same rules.
 */
/** `load.active`: runs the worker holds (assigned, claimed, running); `load.waiting`: those not yet claimed. */
export const workerLoad = (sql) => sql `CROSS JOIN LATERAL (
    SELECT count(*)::int AS active, (count(*) FILTER (WHERE a.status = 'assigned'))::int AS waiting
    FROM runs a WHERE a.worker_id = w.id AND a.ended_at IS NULL AND a.status IN ('assigned', 'claimed', 'running')
  ) load`;
/**
 * Seen within the last `activeSeconds` at `now`: polling (a waiting poll
 * refreshes it, see `Presence`) or otherwise in touch, so preferred for new runs.
 */
export const workerActive = (sql, now, activeSeconds) => sql `w.last_seen_at > ${now}::timestamptz - ${activeSeconds}::int * interval '1 second'`;
/** Seen within the offline threshold at `now`. */
export const workerOnline = (sql, now, offlineAfterSeconds) => sql `w.last_seen_at > ${now}::timestamptz - ${offlineAfterSeconds}::int * interval '1 second'`;
//# sourceMappingURL=WorkerLoad.js.map