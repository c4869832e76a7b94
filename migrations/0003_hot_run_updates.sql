-- Lets the busiest updates of a run be HOT (heap-only) updates. Postgres
-- updates a row in place on its page, writing no index entry, only when no
-- indexed column changes (index predicates included). The old active-run
-- indexes named `status`, so claim, start and every heartbeat wrote a new
-- entry into each of the table's indexes. The new ones rest on `worker_id`
-- (set at assignment) and `ended_at` (set once, at the end): claim, start and
-- heartbeat change neither. Every queued run has no worker and has not ended
-- (queries still check `status` on the rows the index finds). Fillfactor
-- leaves each page room for those in-place updates.

DROP INDEX runs_active;
DROP INDEX runs_worker_active;
CREATE INDEX runs_queued ON runs(environment_id, id) WHERE worker_id IS NULL AND ended_at IS NULL;
CREATE INDEX runs_open_by_worker ON runs(worker_id) WHERE ended_at IS NULL;
ALTER TABLE runs SET (fillfactor = 80);
