-- Flow control I (docs/flow-control.md): concurrency limits per trigger, per
-- concurrency key and in shared pools.
--
-- A run holds a place from the moment it is placed on a worker (assigned)
-- until it ends or goes back to queued: exactly the runs with
-- `worker_id IS NOT NULL AND ended_at IS NULL`. Places are counted from the
-- runs themselves, never from a counter kept beside them, so every way a run
-- ends (complete, time-outs, cancel, revoke, retry, expiry) frees its place
-- by ending the run, and nothing can leak.

CREATE TABLE concurrency_pools (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  name text NOT NULL,
  "limit" int NOT NULL CHECK ("limit" BETWEEN 1 AND 10000),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX concurrency_pools_name ON concurrency_pools(environment_id, name);

-- NULL: no such limit. A pool a live trigger uses cannot be deleted (409);
-- a soft-deleted trigger lets go of it.
ALTER TABLE triggers
  ADD COLUMN concurrency_limit int CHECK (concurrency_limit BETWEEN 1 AND 10000),
  ADD COLUMN concurrency_per_key int CHECK (concurrency_per_key BETWEEN 1 AND 10000),
  ADD COLUMN concurrency_key_from text,
  ADD COLUMN concurrency_pool_id uuid REFERENCES concurrency_pools(id) ON DELETE SET NULL;
CREATE INDEX triggers_concurrency_pool ON triggers(concurrency_pool_id) WHERE concurrency_pool_id IS NOT NULL;

-- `concurrency_key`: the run's key ('' for runs without one: they share it).
-- `flow_limited`: the run's trigger has a limit (or a pool), so the run is
-- placed by the limited placement (under the environment's advisory lock),
-- never by the free one; kept current for open runs when the trigger's
-- limits are added or removed. Both have constant defaults: no table rewrite.
ALTER TABLE runs
  ADD COLUMN concurrency_key text NOT NULL DEFAULT '',
  ADD COLUMN flow_limited boolean NOT NULL DEFAULT false;

-- The free placement's queue holds only runs without limits, so a backlog
-- held back by a limit never sits in front of the runs that may go.
DROP INDEX runs_queued;
CREATE INDEX runs_queued ON runs(environment_id, id) WHERE worker_id IS NULL AND ended_at IS NULL AND NOT flow_limited;
-- Limited runs waiting, by trigger and key in request order (fair order and wait reasons).
CREATE INDEX runs_queued_limited ON runs(environment_id, trigger_id, concurrency_key, id)
  WHERE worker_id IS NULL AND ended_at IS NULL AND flow_limited;
-- Limited runs holding a place, by trigger and key (the counts a placement checks).
CREATE INDEX runs_placed_limited ON runs(trigger_id, concurrency_key)
  WHERE worker_id IS NOT NULL AND ended_at IS NULL AND flow_limited;
