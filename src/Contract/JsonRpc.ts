import * as Schema from "effect/Schema"

/**
 * JSON-RPC 2.0 as MCP uses it: the messages one HTTP POST carries, and the
 * answers. Contract side: the schemas also describe `POST /api/v1/mcp` in the
 * OpenAPI document.
 */
export const RequestId = Schema.Union(Schema.String, Schema.Number)
export type RequestId = typeof RequestId.Type

export const codes = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603
} as const

export const ErrorObject = Schema.Struct({
  code: Schema.Int,
  message: Schema.String,
  data: Schema.optional(Schema.Unknown)
})

/** A request (with `id`) or a notification (without). */
export const Message = Schema.Struct({
  jsonrpc: Schema.Literal("2.0"),
  id: Schema.optional(RequestId),
  method: Schema.String,
  params: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
}).annotations({
  identifier: "JsonRpcMessage",
  description: "A JSON-RPC 2.0 request (with `id`: answered) or notification (without: 202, no body)."
})

export const Response = Schema.Union(
  Schema.Struct({ jsonrpc: Schema.Literal("2.0"), id: RequestId, result: Schema.Record({ key: Schema.String, value: Schema.Unknown }) }),
  Schema.Struct({ jsonrpc: Schema.Literal("2.0"), id: Schema.NullOr(RequestId), error: ErrorObject })
).annotations({ identifier: "JsonRpcResponse", description: "The result, or a JSON-RPC error." })
export type Response = typeof Response.Type

export const result = (id: RequestId, value: Record<string, unknown>): Response => ({ jsonrpc: "2.0", id, result: value })

export const error = (id: RequestId | null, code: number, message: string): Response => ({
  jsonrpc: "2.0",
  id,
  error: { code, message }
})

/** What one message in a POST body is, once read. */
export type Incoming =
  | { readonly _tag: "Request"; readonly id: RequestId; readonly method: string; readonly params: Record<string, unknown> }
  | { readonly _tag: "Notification"; readonly method: string }
  /** A client's answer to a server request; this server sends none, so it is acknowledged and ignored. */
  | { readonly _tag: "ClientResponse" }
  | { readonly _tag: "Invalid"; readonly id: RequestId | null; readonly message: string }

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const isId = (value: unknown): value is RequestId =>
  typeof value === "string" || (typeof value === "number" && Number.isFinite(value))

/** Classifies one parsed JSON value; anything that is not a JSON-RPC 2.0 message is `Invalid` (-32600). */
export const classify = (value: unknown): Incoming => {
  if (!isRecord(value)) return { _tag: "Invalid", id: null, message: "a JSON-RPC message must be an object" }
  const id = isId(value.id) ? value.id : null
  if (value.jsonrpc !== "2.0") return { _tag: "Invalid", id, message: "jsonrpc must be \"2.0\"" }
  if (value.method === undefined && "id" in value && ("result" in value || "error" in value)) return { _tag: "ClientResponse" }
  if (typeof value.method !== "string") return { _tag: "Invalid", id, message: "method must be a string" }
  if (value.params !== undefined && !isRecord(value.params)) {
    return { _tag: "Invalid", id, message: "params must be an object" }
  }
  if (!("id" in value)) return { _tag: "Notification", method: value.method }
  if (id === null) return { _tag: "Invalid", id: null, message: "id must be a string or a number" }
  return { _tag: "Request", id, method: value.method, params: (value.params as Record<string, unknown> | undefined) ?? {} }
}
