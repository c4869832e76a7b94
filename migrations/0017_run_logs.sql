-- Run logs (src/RunLogs): the lines a worker streams while a run executes,
-- numbered per run, and the run's structured result.

-- One row per stored line. `seq` numbers a run's lines from 1 with no gap:
-- appends to one run take turns on its run_log_state row, so the lines that
-- are visible are always a prefix of the run's log (a follower never sees a
-- line before an earlier one). Deleted with the run (retention, environment
-- deletion) by the foreign key.
CREATE TABLE run_logs (
  run_id uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq bigint NOT NULL,
  stream text NOT NULL CHECK (stream IN ('stdout', 'stderr')),
  text text NOT NULL,
  at timestamptz NOT NULL,
  PRIMARY KEY (run_id, seq)
);

-- Per run: where its log stands. Created by the run's first append.
CREATE TABLE run_log_state (
  run_id uuid PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  -- The last seq stored (0: none).
  last_seq bigint NOT NULL DEFAULT 0,
  -- UTF-8 bytes of text stored, at most RUN_LOG_MAX_BYTES.
  bytes bigint NOT NULL DEFAULT 0,
  -- Past the limit: what was counted and not stored, and the seq of the one marker line saying so.
  dropped_bytes bigint NOT NULL DEFAULT 0,
  dropped_lines bigint NOT NULL DEFAULT 0,
  marker_seq bigint,
  -- The highest worker sequence number taken (0: none): a resent batch's lines at or below it are not stored again.
  worker_seq bigint NOT NULL DEFAULT 0
);

-- The run's structured result (`output` of complete, any JSON up to 1 MiB); null when none was sent.
ALTER TABLE runs ADD COLUMN output jsonb;
