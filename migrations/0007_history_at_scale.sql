-- Reads that stay fast on a long history (docs/benchmarks.md, "History at
-- scale"), without giving up the heap-only updates of 0003: no index names a
-- column that claim, start or a heartbeat changes (`status`, `claimed_at`,
-- `started_at`, `last_heartbeat_at`, `deadline_at`).
--
-- - `outcome` is the status of a run that has ended, null before: a stored
--   generated column, so it is indexable. Claim and start change `status` but
--   leave `outcome` null (unchanged), so their updates stay heap-only; it is
--   set in the same update as `ended_at`, which writes index entries anyway.
--   Adding it rewrites the table once.
-- - Listings: open runs (`ended_at IS NULL`, the active statuses) and ended
--   runs by outcome each have an index in id order, so `status=` never walks
--   the history; so do a worker's runs and a `from`/`to` window.
-- - `runs_ended` gains the outcome, duration and cost: the time series and the
--   overview read them from the index alone.
-- - `runs_retry_of`: the `retry_of_run_id` foreign key's ON DELETE SET NULL
--   (retention deleting an old run) would otherwise scan the table per row.
-- - `run_daily_totals`: a closed UTC day's spend, computed once (the month's
--   spend would otherwise sum up to a month of runs on every overview).
-- - The audit log by action, and its `run.requested` rows by age (retention).

ALTER TABLE runs ADD COLUMN outcome text GENERATED ALWAYS AS (CASE WHEN ended_at IS NOT NULL THEN status END) STORED;
DROP INDEX runs_ended;
CREATE INDEX runs_ended ON runs(environment_id, ended_at) INCLUDE (outcome, duration_ms, cost_usd) WHERE ended_at IS NOT NULL;
CREATE INDEX runs_created ON runs(environment_id, created_at, id) INCLUDE (outcome);
CREATE INDEX runs_open ON runs(environment_id, id DESC) WHERE ended_at IS NULL;
CREATE INDEX runs_outcome ON runs(environment_id, outcome, id DESC) WHERE outcome IS NOT NULL;
CREATE INDEX runs_worker ON runs(worker_id, id DESC) WHERE worker_id IS NOT NULL;
CREATE INDEX runs_retry_of ON runs(retry_of_run_id) WHERE retry_of_run_id IS NOT NULL;

CREATE TABLE run_daily_totals (
  environment_id uuid NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  day date NOT NULL,
  cost_usd numeric NOT NULL,
  PRIMARY KEY (environment_id, day)
);

CREATE INDEX audit_log_action ON audit_log(environment_id, action, id DESC);
CREATE INDEX audit_log_run_requested ON audit_log(created_at) WHERE action = 'run.requested';
