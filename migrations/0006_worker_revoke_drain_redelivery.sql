-- Day-2 operations on workers and webhooks.
-- - `workers.revoked_at`: a revoked worker's token is refused and it is
--   assigned nothing; the row stays (runs name it) and listings show it for
--   24 h. `workers.draining`: keeps its runs, is assigned no new ones.
-- - Webhook redelivery: a run may now have several delivery records (one per
--   delivery), so `webhook_deliveries.run_id` is no longer unique. The outbox
--   keeps one row per run (its primary key): that is what makes a second
--   delivery of a run wait until the pending one has ended. Both tables say
--   what started the delivery: the terminal transition or an operator.

ALTER TABLE workers ADD COLUMN revoked_at timestamptz;
ALTER TABLE workers ADD COLUMN draining boolean NOT NULL DEFAULT false;

ALTER TABLE webhook_outbox ADD COLUMN trigger text NOT NULL DEFAULT 'automatic'
  CHECK (trigger IN ('automatic', 'manual'));
ALTER TABLE webhook_deliveries ADD COLUMN trigger text NOT NULL DEFAULT 'automatic'
  CHECK (trigger IN ('automatic', 'manual'));
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_run_id_key;
CREATE INDEX webhook_deliveries_run ON webhook_deliveries(run_id, id DESC);
