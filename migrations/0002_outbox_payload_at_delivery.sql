-- The webhook body is rendered when the outbox row is leased, from the
-- terminal run (whose reported fields never change once it is terminal), so
-- a terminal transition is one statement. Rows written before this migration
-- keep the payload they were given.

ALTER TABLE webhook_outbox ALTER COLUMN payload DROP NOT NULL;
