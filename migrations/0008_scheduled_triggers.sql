-- Scheduled triggers. A trigger's schedule is its cron expression, IANA zone
-- and catch-up rule; `next_run_at` is its next tick, the one thing each
-- instance's scheduling fiber reads (through the partial index, so unscheduled
-- and deleted triggers cost nothing). A tick's run carries `scheduled_for`:
-- unique per trigger, so whatever happens a tick has at most one run. The run
-- is inserted by the statement that moves `next_run_at` on (conditionally on
-- the value read), so a tick also has at least one.

ALTER TABLE triggers
  ADD COLUMN schedule_cron text,
  ADD COLUMN schedule_timezone text,
  ADD COLUMN schedule_catch_up text CHECK (schedule_catch_up IN ('latest', 'none')),
  ADD COLUMN next_run_at timestamptz;
CREATE INDEX triggers_next_run ON triggers(next_run_at)
  WHERE schedule_cron IS NOT NULL AND deleted_at IS NULL;
ALTER TABLE runs ADD COLUMN scheduled_for timestamptz;
CREATE UNIQUE INDEX runs_scheduled_tick ON runs(trigger_id, scheduled_for) WHERE scheduled_for IS NOT NULL;
