import * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
/**
 * The MCP endpoint: its tool calls are audited with actor type `mcp` (the
 * actor id is the trigger's id), and every request looks its trigger up by
 * the token's hash, so that lookup gets an index. Unique: two triggers never
 * share a token (a hash of 32 random bytes), and a lookup finds one row.
 */
declare const _default: Effect.Effect<void, import("@effect/sql/SqlError").SqlError, SqlClient.SqlClient>;
export default _default;
//# sourceMappingURL=0009_mcp_actor.d.ts.map