-- The MCP endpoint: its tool calls are audited with actor type `mcp` (the
-- actor id is the trigger's id), and every request looks its trigger up by
-- the token's hash, so that lookup gets an index. Unique: two triggers never
-- share a token (a hash of 32 random bytes), and a lookup finds one row.

ALTER TABLE audit_log DROP CONSTRAINT audit_log_actor_type_check;
ALTER TABLE audit_log ADD CONSTRAINT audit_log_actor_type_check
  CHECK (actor_type IN ('user', 'api_key', 'worker', 'system', 'mcp'));
CREATE UNIQUE INDEX triggers_mcp_token ON triggers(mcp_token_hash) WHERE mcp_token_hash IS NOT NULL;
