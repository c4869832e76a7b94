import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { TriggersRepo } from "../Triggers/TriggersRepo.js"
import type { McpGrant } from "../Contract/McpApi.js"
import * as JsonRpc from "../Contract/JsonRpc.js"
import { McpTools } from "./Tools.js"

/** Newest first; `initialize` answers the client's revision when it is one of these, else the newest. */
export const protocolVersions = ["2025-11-25", "2025-06-18", "2025-03-26"] as const

export const serverInfo = { name: "pipeline-trigger-service", title: "Pipeline Trigger Service", version: "1" } as const

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * The MCP methods this server answers. Stateless: no session is kept, so any
 * instance answers any request, and nothing needs `initialize` to have come
 * first on this instance (the token, checked on every request, is the state).
 */
export class McpMethods extends Effect.Service<McpMethods>()("Mcp/Methods", {
  effect: Effect.gen(function*() {
    const tools = yield* McpTools
    const triggers = yield* TriggersRepo

    const initialize = (grant: McpGrant, id: JsonRpc.RequestId, params: Record<string, unknown>) =>
      Effect.gen(function*() {
        const requested = params.protocolVersion
        if (typeof requested !== "string") {
          return JsonRpc.error(id, JsonRpc.codes.invalidParams, "params.protocolVersion must be a string")
        }
        const protocolVersion = (protocolVersions as ReadonlyArray<string>).includes(requested) ? requested : protocolVersions[0]
        const trigger = yield* triggers.findActive(grant.triggerId)
        const name = Option.match(trigger, { onNone: () => grant.triggerId, onSome: (t) => t.name })
        return JsonRpc.result(id, {
          protocolVersion,
          capabilities: { tools: { listChanged: false } },
          serverInfo,
          instructions: `This connection runs one pipeline: the trigger "${name}". Start a run with run_trigger, ` +
            "then call wait_for_run with its id until its status is succeeded, failed or timed_out; get_run and " +
            "list_runs read runs of this trigger; describe_trigger shows its default input, the input schema run_trigger's " +
            "input must match (null: any JSON) and limits."
        })
      })

    const callTool = (grant: McpGrant, id: JsonRpc.RequestId, params: Record<string, unknown>) => {
      if (typeof params.name !== "string") {
        return Effect.succeed(JsonRpc.error(id, JsonRpc.codes.invalidParams, "params.name must be a string"))
      }
      if (params.arguments !== undefined && !isRecord(params.arguments)) {
        return Effect.succeed(JsonRpc.error(id, JsonRpc.codes.invalidParams, "params.arguments must be an object"))
      }
      const called = tools.call(grant, params.name, params.arguments)
      if (called === undefined) {
        return Effect.succeed(JsonRpc.error(id, JsonRpc.codes.invalidParams, `unknown tool: ${params.name}`))
      }
      return Effect.map(called, (result) => JsonRpc.result(id, { ...result }))
    }

    /**
     * The answer to one request. A defect (the database failing mid-call) is
     * a JSON-RPC internal error, logged here: the endpoint never answers 5xx
     * for a message it could read.
     */
    const answer = (grant: McpGrant, request: { id: JsonRpc.RequestId; method: string; params: Record<string, unknown> }) => {
      const { id, method, params } = request
      const handled: Effect.Effect<JsonRpc.Response> = (() => {
        switch (method) {
          case "initialize":
            return initialize(grant, id, params)
          case "ping":
            return Effect.succeed(JsonRpc.result(id, {}))
          case "tools/list":
            return Effect.map(tools.listingsFor(grant), (listings) => JsonRpc.result(id, { tools: listings }))
          case "tools/call":
            return callTool(grant, id, params)
          default:
            return Effect.succeed(JsonRpc.error(id, JsonRpc.codes.methodNotFound, `method not found: ${method}`))
        }
      })()
      return handled.pipe(
        Effect.catchAllCause((cause) =>
          Effect.logError("MCP request failed", cause).pipe(
            Effect.as(JsonRpc.error(id, JsonRpc.codes.internalError, "internal error"))
          )
        ),
        Effect.annotateLogs({ mcpMethod: method })
      )
    }

    return { answer } as const
  })
}) {}
