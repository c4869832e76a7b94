import * as SqlClient from "@effect/sql/SqlClient";
import * as Layer from "effect/Layer";
import { McpAuthentication } from "./Api.js";
/**
 * The token is looked up on every request, never cached: rotating it or
 * deleting the trigger makes the old one 401 at once, on every instance.
 * One indexed read (`triggers_mcp_token`) per MCP call.
 */
export declare const McpAuthenticationLive: Layer.Layer<McpAuthentication, never, SqlClient.SqlClient>;
//# sourceMappingURL=Authentication.d.ts.map