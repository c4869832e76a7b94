-- Flow control II (docs/delays-and-retries.md): delayed runs, a run's time-to-live
-- (the terminal status `expired`), priority, and retries with backoff.
--
-- - `available_at`: when the run may first be placed (a delay, a `runAt`, a
--   retry's backoff); null for a run placeable at its creation.
-- - `delayed`: true while `available_at` is still ahead. Placement reads only
--   runs that are not delayed (index `runs_queued`), so 100,000 runs waiting
--   cost placement nothing; one statement per due moment clears the flag
--   (`runs_delayed` finds the next due time: one probe, no loop per run).
-- - `queue_at`: the moment the run ranks as in the queue, `available_at` (or
--   `created_at`) minus `priority` seconds; null when that is `created_at`.
--   Placement takes ready runs in `COALESCE(queue_at, created_at), id` order.
-- - `expires_at`: a run not claimed by then ends `expired` (one conditional
--   UPDATE, so exactly once across instances); `ttl_seconds` is kept so a
--   reschedule moves the deadline with `available_at`.
-- - `retry_policy`: the trigger's backoff, snapshotted like the other limits;
--   `retryable`: false when the worker said no retry will fix the failure.
--
-- Claim, start and heartbeat change none of the indexed columns, so they stay
-- heap-only updates (see 0003).

ALTER TABLE runs DROP CONSTRAINT runs_status_check;
ALTER TABLE runs ADD CONSTRAINT runs_status_check
  CHECK (status IN ('queued', 'assigned', 'claimed', 'running', 'succeeded', 'failed', 'timed_out', 'cancelled', 'expired'));

ALTER TABLE runs
  ADD COLUMN available_at timestamptz,
  ADD COLUMN delayed boolean NOT NULL DEFAULT false,
  ADD COLUMN priority int NOT NULL DEFAULT 0,
  ADD COLUMN queue_at timestamptz,
  ADD COLUMN expires_at timestamptz,
  ADD COLUMN ttl_seconds int,
  ADD COLUMN retry_policy jsonb,
  ADD COLUMN retryable boolean NOT NULL DEFAULT true;

ALTER TABLE triggers
  ADD COLUMN ttl_seconds int,
  ADD COLUMN retry_policy jsonb;

-- The free placement's queue (0015: runs without limits) also leaves out
-- delayed runs, and is ordered by queue rank. Limited runs keep 0015's
-- runs_queued_limited; their placement skips delayed ones and orders each
-- key's runs by the same rank.
DROP INDEX runs_queued;
CREATE INDEX runs_queued ON runs(environment_id, (COALESCE(queue_at, created_at)), id)
  WHERE worker_id IS NULL AND ended_at IS NULL AND NOT flow_limited AND NOT delayed;
CREATE INDEX runs_delayed ON runs(available_at) WHERE delayed AND ended_at IS NULL;
CREATE INDEX runs_expiring ON runs(expires_at) WHERE expires_at IS NOT NULL AND ended_at IS NULL;

ALTER TABLE run_series_buckets ADD COLUMN expired int NOT NULL DEFAULT 0;
