-- The stored run timeline: one row per transition, written in the statement
-- that makes the transition (see `Runs/RunTimeline`), so it survives restarts
-- and never disagrees with the run.
--
-- `id` is the cursor of the live event stream (SSE `id:`). Ids are taken
-- before commit, so a row with a smaller id can become visible after one with
-- a larger id; `tx` (the writing transaction) lets a reader take only rows of
-- transactions that have all finished (`tx < pg_snapshot_xmin(...)`) and walk
-- them in `(tx, id)` order, so no row ever appears behind a cursor already
-- handed out. `worker_id` has no foreign key: the timeline keeps naming a
-- worker after it is deleted.

CREATE TABLE run_events (
  id bigserial PRIMARY KEY,
  run_id uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  environment_id uuid NOT NULL,
  status text NOT NULL,
  at timestamptz NOT NULL,
  worker_id uuid,
  reason text NOT NULL,
  tx xid8 NOT NULL DEFAULT pg_current_xact_id()
);
CREATE INDEX run_events_by_run ON run_events(run_id, id);
CREATE INDEX run_events_by_environment ON run_events(environment_id, tx, id);
