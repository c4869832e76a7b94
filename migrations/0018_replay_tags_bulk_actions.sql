-- Acting on many runs at once (docs/bulk-actions.md).
--
-- - `runs.replay_of_run_id`: the run a replay repeats (`POST /runs/{id}/replay`
--   and bulk replays). Its foreign key's ON DELETE SET NULL (retention
--   deleting an old run) has an index to find the replays.
-- - `runs.tags` and `triggers.default_tags`: up to 10 labels a run carries
--   (its request's and its trigger's defaults). Adding a column with a
--   constant default rewrites nothing.
-- - `run_tags`: one row per (run, tag), written with the run. Listing an
--   environment's runs by tag walks `run_tags_listing` in run id order, newest
--   first, as the other listings walk theirs: a page costs the same at a
--   million runs as at a thousand, however common or rare the tag. (A GIN
--   index on `runs.tags` cannot answer in id order: a common tag would sort
--   all its runs for each page.) Never updated, so runs' heap-only updates
--   (0003) are untouched.
-- - `bulk_actions`: a cancel or replay of many runs, worked through in the
--   background by one instance at a time (a lease: `lease_owner` and
--   `lease_until`, taken and renewed by conditional UPDATEs), with its
--   progress counts and its cursor, so a restarted or other instance resumes
--   where the last one left off.
-- - `bulk_action_runs`: the runs a bulk action matched, fixed when it is
--   created (a filter's matches then, or the ids given), in the order they
--   are worked through.

ALTER TABLE runs ADD COLUMN replay_of_run_id uuid REFERENCES runs(id) ON DELETE SET NULL;
ALTER TABLE runs ADD COLUMN tags text[] NOT NULL DEFAULT '{}';
CREATE INDEX runs_replay_of ON runs(replay_of_run_id) WHERE replay_of_run_id IS NOT NULL;

ALTER TABLE triggers ADD COLUMN default_tags text[] NOT NULL DEFAULT '{}';

CREATE TABLE run_tags (
  run_id uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  environment_id uuid NOT NULL,
  tag text NOT NULL,
  PRIMARY KEY (run_id, tag)
);
CREATE INDEX run_tags_listing ON run_tags(environment_id, tag, run_id DESC);

CREATE TABLE bulk_actions (
  id uuid PRIMARY KEY,
  environment_id uuid NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  action text NOT NULL CHECK (action IN ('cancel', 'replay')),
  -- Exactly one of the two: the filter as given, or the number of ids given.
  filter jsonb,
  run_ids_given int,
  idempotency_key text,
  actor_type text NOT NULL,
  actor_id uuid,
  -- An API key's role, so replays are requested with the key's standing.
  actor_role text,
  state text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'completed', 'cancelled')),
  matched int NOT NULL,
  done int NOT NULL DEFAULT 0,
  skipped_already_ended int NOT NULL DEFAULT 0,
  skipped_not_visible int NOT NULL DEFAULT 0,
  failed int NOT NULL DEFAULT 0,
  last_error text,
  -- The last run worked through (runs go in id order); null before the first.
  cursor uuid,
  lease_owner uuid,
  lease_until timestamptz,
  cancel_requested_at timestamptz,
  created_at timestamptz NOT NULL,
  started_at timestamptz,
  ended_at timestamptz
);
CREATE UNIQUE INDEX bulk_actions_idempotency ON bulk_actions(environment_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX bulk_actions_environment ON bulk_actions(environment_id, id DESC);
CREATE INDEX bulk_actions_open ON bulk_actions(id) WHERE ended_at IS NULL;

CREATE TABLE bulk_action_runs (
  bulk_action_id uuid NOT NULL REFERENCES bulk_actions(id) ON DELETE CASCADE,
  run_id uuid NOT NULL,
  PRIMARY KEY (bulk_action_id, run_id)
);
