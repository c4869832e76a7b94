import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { sha256 } from "../Crypto/Tokens.js"
import { Unauthorized } from "../Domain/Errors.js"
import { McpAuthentication, type McpGrant } from "./Api.js"

/**
 * The token is looked up on every request, never cached: rotating it or
 * deleting the trigger makes the old one 401 at once, on every instance.
 * One indexed read (`triggers_mcp_token`) per MCP call.
 */
export const layer = Layer.effect(
  McpAuthentication,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return McpAuthentication.of({
      mcpToken: (token) =>
        Effect.gen(function*() {
          const value = Redacted.value(token).trim()
          if (!value.startsWith("mcp_")) return yield* Effect.fail(Unauthorized.default)
          const rows = yield* sql<{ id: string; environment_id: string }>`
            SELECT id, environment_id FROM triggers WHERE mcp_token_hash = ${sha256(value)} AND deleted_at IS NULL`.pipe(
            Effect.orDie
          )
          const row = rows[0]
          if (row === undefined) return yield* Effect.fail(new Unauthorized({ error: "invalid MCP token" }))
          return { triggerId: row.id, environmentId: row.environment_id } satisfies McpGrant
        })
    })
  })
)
