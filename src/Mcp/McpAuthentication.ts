import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { sha256 } from "../Crypto/Tokens.js"
import { Unauthorized } from "../Contract/Domain/ApiErrors.js"
import { McpAuthentication, type McpGrant } from "../Contract/McpApi.js"

/**
 * The token is looked up on every request, never cached: rotating it or
 * deleting the trigger makes the old one 401 at once, on every instance.
 * One indexed read (`triggers_mcp_token`) per MCP call.
 */
export const layer = Layer.effect(
  McpAuthentication,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const grantOf = SqlSchema.findOne({
      Request: Schema.String,
      Result: Schema.Struct({ id: Schema.String, environment_id: Schema.String }),
      execute: (tokenHash) => sql`SELECT id, environment_id FROM triggers WHERE mcp_token_hash = ${tokenHash} AND deleted_at IS NULL`
    })
    return McpAuthentication.of({
      mcpToken: (token) =>
        Effect.gen(function*() {
          const value = Redacted.value(token).trim()
          if (!value.startsWith("mcp_")) return yield* Effect.fail(Unauthorized.default)
          const row = yield* Effect.orDie(grantOf(sha256(value)))
          if (Option.isNone(row)) return yield* Effect.fail(new Unauthorized({ error: "invalid MCP token" }))
          // A token acts as an operator of its trigger's environment (docs/mcp.md).
          return { triggerId: row.value.id, environmentId: row.value.environment_id, role: "operator" } satisfies McpGrant
        })
    })
  })
)
