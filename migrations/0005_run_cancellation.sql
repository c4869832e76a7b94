-- Run cancellation: the terminal status `cancelled`, and when a cancel was
-- requested of a run a worker holds (claimed or running). The run stays with
-- its worker until it completes or the grace period passes; the stored
-- request lets any instance finish the job after a restart.

ALTER TABLE runs DROP CONSTRAINT runs_status_check;
ALTER TABLE runs ADD CONSTRAINT runs_status_check
  CHECK (status IN ('queued', 'assigned', 'claimed', 'running', 'succeeded', 'failed', 'timed_out', 'cancelled'));
ALTER TABLE runs ADD COLUMN cancel_requested_at timestamptz;
-- What each poll asks (a worker's runs waiting to be stopped): nearly always empty, so nearly free.
-- Its columns change only on a cancel request and at the end, so heartbeats stay HOT updates.
CREATE INDEX runs_cancel_requested ON runs(worker_id) WHERE cancel_requested_at IS NOT NULL AND ended_at IS NULL;
