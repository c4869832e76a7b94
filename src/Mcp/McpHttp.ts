import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Api } from "../Contract/Api.js"
import { Forbidden } from "../Contract/Domain/ApiErrors.js"
import { Origins } from "../Http/Origins.js"
import { CurrentMcpGrant, type McpGrant } from "../Contract/McpApi.js"
import * as JsonRpc from "../Contract/JsonRpc.js"
import { McpMethods, protocolVersions } from "./Methods.js"
import { sseAnswer, streams } from "./Streaming.js"
import { McpTools } from "./Tools.js"

const json = (body: unknown, status: number) => HttpServerResponse.unsafeJson(body, { status })
const accepted = HttpServerResponse.empty({ status: 202 })

/**
 * `POST /api/v1/mcp`: one JSON-RPC message (or, for 2025-03-26 clients, a
 * batch) per request, answered as JSON, except a call of a tool that waits
 * from a client that accepts SSE: that answer is an SSE stream ending with the
 * response (`Mcp/Streaming`). No sessions, no GET stream. An unreadable
 * message answers 400 with a JSON-RPC error, as the official SDK's server does;
 * a readable one answers 200 (its result or JSON-RPC error) or, when it needs
 * no answer (notifications), 202.
 */
export const McpLive = HttpApiBuilder.group(Api, "mcp", (handlers) =>
  Effect.gen(function*() {
    const methods = yield* McpMethods
    const origins = yield* Origins

    const answerOne = (grant: McpGrant, value: unknown): Effect.Effect<JsonRpc.Response | undefined> => {
      const message = JsonRpc.classify(value)
      switch (message._tag) {
        case "Invalid":
          return Effect.succeed(JsonRpc.error(message.id, JsonRpc.codes.invalidRequest, `invalid request: ${message.message}`))
        case "Notification":
        case "ClientResponse":
          return Effect.succeed(undefined)
        case "Request":
          return methods.answer(grant, message)
      }
    }

    return handlers
      .handleRaw("call", ({ request }) =>
        Effect.gen(function*() {
          // Streamable HTTP requires the Origin check (DNS rebinding); clients outside a browser send none.
          const origin = request.headers["origin"]
          if (origin !== undefined && !origins.isAllowed(origin)) {
            return yield* Effect.fail(new Forbidden({ error: "origin not allowed" }))
          }
          const version = request.headers["mcp-protocol-version"]
          if (version !== undefined && !(protocolVersions as ReadonlyArray<string>).includes(version)) {
            return json(JsonRpc.error(null, JsonRpc.codes.invalidRequest, `unsupported MCP-Protocol-Version: ${version}`), 400)
          }
          const grant = yield* CurrentMcpGrant
          const text = yield* Effect.orDie(request.text)
          let body: unknown
          try {
            body = JSON.parse(text)
          } catch {
            return json(JsonRpc.error(null, JsonRpc.codes.parseError, "parse error: the body is not JSON"), 400)
          }
          if (Array.isArray(body)) {
            if (body.length === 0) return json(JsonRpc.error(null, JsonRpc.codes.invalidRequest, "invalid request: empty batch"), 400)
            const answers = yield* Effect.forEach(body, (item) => answerOne(grant, item))
            const present = answers.filter((a): a is JsonRpc.Response => a !== undefined)
            return present.length === 0 ? accepted : json(present, 200)
          }
          const message = JsonRpc.classify(body)
          if (message._tag === "Invalid") {
            return json(JsonRpc.error(message.id, JsonRpc.codes.invalidRequest, `invalid request: ${message.message}`), 400)
          }
          // A tool call that may wait, from a client that accepts SSE: the answer streams (see `Mcp/Streaming`).
          if (message._tag === "Request" && streams(request.headers["accept"], message)) {
            return sseAnswer(message, methods.answer(grant, message))
          }
          const answer = yield* answerOne(grant, body)
          return answer === undefined ? accepted : json(answer, 200)
        }).pipe(Effect.withSpan("Mcp.request")))
      .handleRaw("stream", () =>
        Effect.succeed(json({ error: "this MCP server opens no stream: POST JSON-RPC messages instead" }, 405).pipe(
          HttpServerResponse.setHeader("allow", "POST")
        )))
  })).pipe(Layer.provide(McpMethods.Default), Layer.provide(McpTools.Default))
