import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as HttpApiSecurity from "@effect/platform/HttpApiSecurity"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Context from "effect/Context"
import * as Schema from "effect/Schema"
import { Forbidden, Unauthorized } from "./Domain/ApiErrors.js"
import type { Role } from "./Domain/Schemas.js"
import { ErrorObject, Message, RequestId, Response } from "./JsonRpc.js"

/** What a valid `mcp_` token grants: one live trigger, in its environment, with a role there. */
export interface McpGrant {
  readonly triggerId: string
  readonly environmentId: string
  /** The role the tools act with (the access policy checks it as any caller's); a token grants `operator`. */
  readonly role: Role
}
export class CurrentMcpGrant extends Context.Tag("Mcp/CurrentGrant")<CurrentMcpGrant, McpGrant>() {}

/** `Authorization: Bearer mcp_…`, checked against the database on every request. */
export class McpAuthentication extends HttpApiMiddleware.Tag<McpAuthentication>()("Mcp/Authentication", {
  failure: Unauthorized.wire,
  provides: CurrentMcpGrant,
  security: {
    mcpToken: HttpApiSecurity.bearer.pipe(
      HttpApiSecurity.annotate(OpenApi.Description, "A trigger's `mcp_` token (`POST /triggers/{id}/rotate-mcp-token`).")
    )
  }
}) {}

export class MethodNotAllowed extends Schema.Class<MethodNotAllowed>("MethodNotAllowed")(
  { error: Schema.String },
  HttpApiSchema.annotations({ status: 405, description: "No server-initiated stream: only POST is served" })
) {}

/** A message the endpoint cannot read (not JSON, not JSON-RPC 2.0, an unsupported protocol version). */
const ProtocolError = Schema.Struct({
  jsonrpc: Schema.Literal("2.0"),
  id: Schema.NullOr(RequestId),
  error: ErrorObject
}).annotations({
  identifier: "JsonRpcProtocolError",
  ...HttpApiSchema.annotations({ status: 400 }),
  description: "-32700 (not JSON) or -32600 (not a JSON-RPC 2.0 message, an unsupported MCP-Protocol-Version)"
})

/**
 * The API-wide 400 (validation details) never comes from this endpoint: its
 * 400 is the JSON-RPC error. The generic descriptions say what each status means here.
 */
const describeResponses = (operation: Record<string, any>): Record<string, any> => {
  const responses = operation.responses ?? {}
  const describe = (status: string, description: string) => {
    if (responses[status] !== undefined) responses[status].description = description
  }
  const media = responses["400"]?.content?.["application/json"]
  if (media !== undefined) media.schema = { $ref: "#/components/schemas/JsonRpcProtocolError" }
  describe("200", "The JSON-RPC response: a result (for tools/call, a tool result, `isError: true` when the tool failed) or a JSON-RPC error. " +
    "A `tools/call` of `wait_for_run` from a client whose Accept lists `text/event-stream` is answered as an SSE stream instead")
  const ok = responses["200"]
  if (ok?.content !== undefined) {
    ok.content["text/event-stream"] = {
      schema: {
        type: "string",
        description: "Server-Sent Events, each `event: message` with one JSON-RPC message as `data:`: " +
          "`notifications/progress` while the tool waits (when the request's `params._meta.progressToken` is set), " +
          "then the JSON-RPC response, after which the stream ends. Comment lines every 15 s keep proxies open."
      }
    }
  }
  describe("202", "Only notifications or client responses: accepted, no body")
  describe("400", "Not JSON (-32700), not a JSON-RPC 2.0 message or an unsupported MCP-Protocol-Version header (-32600)")
  describe("401", "No `mcp_` token, or one rotated away or of a deleted trigger")
  describe("403", "An Origin header that is not an allowed origin (DNS rebinding protection)")
  return operation
}

const description = [
  "The Model Context Protocol over Streamable HTTP (protocol revisions 2025-11-25, 2025-06-18 and 2025-03-26), for",
  "AI agents: `initialize`, `ping`, `tools/list` and `tools/call`, answered as JSON, except that a `wait_for_run` call",
  "from a client accepting `text/event-stream` is answered as SSE (progress notifications, then the response). The `mcp_` token grants one",
  "trigger: tools `describe_trigger`, `run_trigger`, `get_run`, `list_runs`, `wait_for_run`, `cancel_run` and `replay_run`, acting as an operator",
  "of the trigger's environment (audit actor type `mcp`). Tool failures are tool results with `isError: true`;",
  "protocol failures are JSON-RPC errors. A notification (no `id`) answers 202 with no body. Rotating the token or",
  "deleting the trigger makes the old token 401 at once."
].join(" ")

export class McpApi extends HttpApiGroup.make("mcp")
  .add(
    HttpApiEndpoint.post("call", "/mcp")
      .annotate(OpenApi.Summary, "MCP endpoint (Streamable HTTP)")
      .annotate(OpenApi.Description, description)
      .annotate(OpenApi.Transform, describeResponses)
      .setPayload(Message)
      .addSuccess(Response)
      .addSuccess(HttpApiSchema.Empty(202))
      .addError(ProtocolError)
      .addError(Forbidden.wire)
      .middleware(McpAuthentication)
  )
  .add(
    HttpApiEndpoint.get("stream", "/mcp")
      .annotate(OpenApi.Summary, "MCP server stream (not offered)")
      .annotate(OpenApi.Description, "Always 405: this server sends no requests or notifications of its own, so it opens no SSE stream.")
      .annotate(OpenApi.Transform, (operation) => {
        // The builder's default 204 success is never answered here.
        delete operation.responses?.["204"]
        return operation
      })
      .addError(MethodNotAllowed)
  )
{}
