import { expect, layer as withLayer } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Redacted from "effect/Redacted"
import { runWorker } from "../../src/WorkerSdk/WorkerSdk.js"
import { addEnvironment, createTrigger, registerWorker, setupEnvironment, type TestEnv } from "../support/Fixtures.js"
import { call, layer } from "../support/TestApp.js"
import { fetchLayer, requestRun, serverUrl } from "../sdk/support.js"

/** A fresh `mcp_` token for the trigger, as its admin rotates it. */
const rotateToken = (env: TestEnv, triggerId: string) =>
  Effect.gen(function*() {
    const res = yield* call("POST", `/api/v1/triggers/${triggerId}/rotate-mcp-token`, { cookie: env.user.cookie })
    expect(res.status).toBe(200)
    return res.body.mcpToken as string
  })

const transport = (baseUrl: string, token: string) =>
  new StreamableHTTPClientTransport(new URL(`${baseUrl}/api/v1/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } }
  })

/** The official SDK client, connected (initialize + notifications/initialized) and closed with the scope. */
const connect = (token: string) =>
  Effect.gen(function*() {
    const baseUrl = yield* serverUrl
    return yield* Effect.acquireRelease(
      Effect.tryPromise(async () => {
        const client = new Client({ name: "mcp-test", version: "1.0.0" })
        await client.connect(transport(baseUrl, token))
        return client
      }),
      (client) => Effect.promise(() => client.close())
    )
  })

/** One tool call through the SDK client. */
const callTool = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  Effect.promise(() => client.callTool({ name, arguments: args })).pipe(
    Effect.map((result) => result as { isError?: boolean; content: Array<{ type: string; text: string }>; structuredContent?: any })
  )

/** A raw POST to the endpoint: status, parsed body (or text) and headers. */
const post = (token: string | undefined, body: string, headers: Record<string, string> = {}) =>
  call("POST", "/api/v1/mcp", {
    rawBody: body,
    headers: {
      accept: "application/json, text/event-stream",
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...headers
    }
  })

const rpc = (method: string, params?: Record<string, unknown>, id: number | string = 1) =>
  JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) })

withLayer(layer(), { excludeTestServices: true })("MCP endpoint", (it) => {
  it.scoped("an agent with the official SDK client lists the tools, runs the trigger and waits while a worker completes it", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const trigger = yield* createTrigger(env, { name: "deploy docs", description: "Builds and publishes the docs", input: { command: "make docs" } })
      const token = yield* rotateToken(env, trigger.id)
      const client = yield* connect(token)

      expect(client.getServerVersion()).toMatchObject({ name: "pipeline-trigger-service" })
      expect(client.getInstructions()).toContain("deploy docs")
      expect(client.getServerCapabilities()).toMatchObject({ tools: {} })

      const { tools } = yield* Effect.promise(() => client.listTools())
      expect(tools.map((t) => t.name).sort()).toEqual(["cancel_run", "describe_trigger", "get_run", "list_runs", "replay_run", "run_trigger", "wait_for_run"])
      for (const tool of tools) {
        expect(tool.description!.length, tool.name).toBeGreaterThan(60)
        expect(tool.inputSchema.type, tool.name).toBe("object")
        expect(tool.annotations?.readOnlyHint, tool.name).toBe(!["run_trigger", "cancel_run", "replay_run"].includes(tool.name))
        expect(JSON.stringify(tool.inputSchema), tool.name).not.toMatch(/\$ref|\$schema|\$id/)
      }
      const schemaOf = (name: string) => tools.find((t) => t.name === name)!.inputSchema as any
      // The REST API's own rules: list_runs' limit and status, the Idempotency-Key's length, a run id.
      expect(schemaOf("list_runs").properties.limit).toMatchObject({ type: "integer", minimum: 1, maximum: 200 })
      expect(schemaOf("list_runs").properties.status.enum).toContain("timed_out")
      expect(schemaOf("run_trigger").properties.idempotencyKey).toMatchObject({ type: "string", minLength: 1, maxLength: 255 })
      expect(schemaOf("wait_for_run").required).toEqual(["runId"])
      expect(schemaOf("wait_for_run").properties.timeoutSeconds).toMatchObject({ type: "integer", maximum: 60 })
      expect(schemaOf("get_run").properties.runId).toMatchObject({ type: "string", format: "uuid" })

      const described = yield* callTool(client, "describe_trigger")
      expect(described.isError).toBeFalsy()
      expect(described.structuredContent).toMatchObject({
        id: trigger.id,
        name: "deploy docs",
        description: "Builds and publishes the docs",
        defaultInput: { command: "make docs" },
        limits: { timeoutSeconds: 3600, heartbeatTimeoutSeconds: 30, maxRetries: 0, waitForRunMaxSeconds: 60 }
      })
      // Never the webhook secret or the token.
      expect(described.content[0]!.text).not.toContain("mcp_")

      const started = yield* callTool(client, "run_trigger", { input: { command: "make docs", ref: "v2" }, idempotencyKey: "agent-1" })
      expect(started.isError).toBeFalsy()
      const run = started.structuredContent
      expect(run).toMatchObject({ triggerId: trigger.id, status: "queued", input: { command: "make docs", ref: "v2" } })
      expect(JSON.parse(started.content[0]!.text)).toEqual(run)
      // The same key: the same run, nothing new.
      const again = yield* callTool(client, "run_trigger", { idempotencyKey: "agent-1" })
      expect(again.structuredContent.id).toBe(run.id)

      // No worker yet: a short wait ends with the run still queued.
      const notYet = yield* callTool(client, "wait_for_run", { runId: run.id, timeoutSeconds: 1 })
      expect(notYet.isError).toBeFalsy()
      expect(notYet.structuredContent).toMatchObject({ id: run.id, status: "queued" })

      // The agent waits; a worker comes online and completes the run meanwhile.
      const waiting = yield* callTool(client, "wait_for_run", { runId: run.id, timeoutSeconds: 30 }).pipe(Effect.fork)
      yield* Effect.sleep("200 millis")
      const { token: workerToken, workerId } = yield* registerWorker(env)
      const worker = yield* runWorker({
        baseUrl: yield* serverUrl,
        credentials: { workerId, token: Redacted.make(workerToken) },
        handler: (r) => Effect.succeed({ status: "succeeded" as const, stdout: `published ${(r.input as any).ref}` })
      }).pipe(Effect.provide(fetchLayer), Effect.fork)
      const ended = yield* Fiber.join(waiting)
      yield* Fiber.interrupt(worker)
      expect(ended.isError).toBeFalsy()
      expect(ended.structuredContent).toMatchObject({ id: run.id, status: "succeeded", shortMessage: "published v2", workerId })

      const read = yield* callTool(client, "get_run", { runId: run.id })
      expect(read.structuredContent).toMatchObject({ id: run.id, status: "succeeded", endedAt: expect.any(String) })
      // An ended run: wait_for_run answers at once.
      const done = yield* callTool(client, "wait_for_run", { runId: run.id })
      expect(done.structuredContent.status).toBe("succeeded")

      yield* callTool(client, "run_trigger")
      const listed = yield* callTool(client, "list_runs", { limit: 1 })
      expect(listed.structuredContent.items).toHaveLength(1)
      expect(listed.structuredContent.nextCursor).toEqual(expect.any(String))
      const next = yield* callTool(client, "list_runs", { limit: 1, cursor: listed.structuredContent.nextCursor })
      expect(next.structuredContent.items.map((r: any) => r.id)).toEqual([run.id])
      const succeeded = yield* callTool(client, "list_runs", { status: "succeeded" })
      expect(succeeded.structuredContent).toMatchObject({ items: [{ id: run.id }], nextCursor: null })

      // Audited as the MCP actor: actor type mcp, actor id the trigger's.
      const audit = yield* call("GET", `/api/v1/environments/${env.environmentId}/audit-log?action=run.requested`, { cookie: env.user.cookie })
      expect(audit.status).toBe(200)
      expect(audit.body.items).toHaveLength(2)
      for (const record of audit.body.items) expect(record).toMatchObject({ actorType: "mcp", actorId: trigger.id })
      // The REST API shows the same run.
      const rest = yield* call("GET", `/api/v1/triggers/${trigger.id}/runs`, { cookie: env.user.cookie })
      expect(rest.body.items.map((r: any) => r.id)).toContain(run.id)
    }))

  it.scoped("a rotated token and a deleted trigger's token are refused at once (401)", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const trigger = yield* createTrigger(env, { name: "rotating" })
      const old = yield* rotateToken(env, trigger.id)
      const client = yield* connect(old)
      expect((yield* callTool(client, "describe_trigger")).isError).toBeFalsy()

      const current = yield* rotateToken(env, trigger.id)
      expect(current).not.toBe(old)
      const refused = yield* post(old, rpc("ping"))
      expect(refused.status).toBe(401)
      // The already connected client's next call fails too; a new connection with the old token is refused.
      const stale = yield* Effect.either(Effect.tryPromise(() => client.callTool({ name: "describe_trigger", arguments: {} })))
      expect(stale._tag).toBe("Left")
      expect((stale as any).left.error.code).toBe(401)
      const reconnect = yield* Effect.either(connect(old))
      expect(reconnect._tag).toBe("Left")
      expect((reconnect as any).left.error.code).toBe(401)

      const fresh = yield* connect(current)
      expect((yield* callTool(fresh, "describe_trigger")).structuredContent.id).toBe(trigger.id)

      const deleted = yield* call("DELETE", `/api/v1/triggers/${trigger.id}`, { cookie: env.user.cookie })
      expect(deleted.status).toBe(204)
      expect((yield* post(current, rpc("ping"))).status).toBe(401)
      expect((yield* post(current, rpc("tools/call", { name: "run_trigger", arguments: {} }))).status).toBe(401)
    }))

  it.scoped("a token reaches only its own trigger's runs: another trigger's run is \"run not found\", nothing leaked", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const a = yield* createTrigger(env, { name: "trigger A" })
      const b = yield* createTrigger(env, { name: "trigger B", input: { secret: "b-only" } })
      const otherEnv = yield* addEnvironment(env, "other")
      const c = yield* createTrigger(otherEnv, { name: "trigger C" })
      const runOfB = yield* requestRun(env, b.id)
      const runOfC = yield* requestRun(otherEnv, c.id)
      const client = yield* connect(yield* rotateToken(env, a.id))

      for (const runId of [runOfB, runOfC, "00000000-0000-7000-8000-000000000000"]) {
        for (const [tool, args] of [["get_run", { runId }], ["wait_for_run", { runId, timeoutSeconds: 1 }], ["cancel_run", { runId }], ["replay_run", { runId }]] as const) {
          const result = yield* callTool(client, tool, args)
          expect(result.isError, tool).toBe(true)
          expect(result.content, tool).toEqual([{ type: "text", text: "run not found" }])
          expect(result.structuredContent, tool).toBeUndefined()
        }
      }
      const listed = yield* callTool(client, "list_runs")
      expect(listed.structuredContent).toEqual({ items: [], nextCursor: null })
      expect(JSON.stringify(listed)).not.toContain("b-only")
      // Its own run is found.
      const own = yield* callTool(client, "run_trigger")
      expect(own.structuredContent.triggerId).toBe(a.id)
      expect((yield* callTool(client, "get_run", { runId: own.structuredContent.id })).structuredContent.id).toBe(own.structuredContent.id)
      // B's run was not cancelled through A's token.
      const b_ = yield* call("GET", `/api/v1/runs/${runOfB}`, { cookie: env.user.cookie })
      expect(b_.body.status).not.toBe("cancelled")

      // cancel_run: its own queued run ends cancelled at once; a second cancel says it has ended.
      const cancelled = yield* callTool(client, "cancel_run", { runId: own.structuredContent.id })
      expect(cancelled.isError).toBeFalsy()
      expect(cancelled.structuredContent).toMatchObject({ id: own.structuredContent.id, status: "cancelled" })
      const again = yield* callTool(client, "cancel_run", { runId: own.structuredContent.id })
      expect(again.isError).toBe(true)
      const audit = yield* call("GET", `/api/v1/environments/${env.environmentId}/audit-log?action=run.cancelled`, { cookie: env.user.cookie })
      expect(audit.body.items).toEqual([expect.objectContaining({ actorType: "mcp", actorId: a.id, targetId: own.structuredContent.id })])

      // replay_run: a new run of its own trigger with the same input, linked; an edited input; B's run is not found (above).
      const replayed = yield* callTool(client, "replay_run", { runId: own.structuredContent.id })
      expect(replayed.isError).toBeFalsy()
      expect(replayed.structuredContent).toMatchObject({ triggerId: a.id, status: "queued", replayOfRunId: own.structuredContent.id })
      const edited = yield* callTool(client, "replay_run", { runId: own.structuredContent.id, input: { edited: true } })
      expect(edited.structuredContent).toMatchObject({ input: { edited: true }, replayOfRunId: own.structuredContent.id })
    }))

  it.scoped("malformed JSON-RPC answers JSON-RPC errors, never a 5xx; invalid tool arguments are tool errors", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const trigger = yield* createTrigger(env, { name: "strict" })
      const token = yield* rotateToken(env, trigger.id)
      const errorOf = (res: { status: number; body: any }) => ({ status: res.status, code: res.body?.error?.code })

      expect(errorOf(yield* post(token, "{not json"))).toEqual({ status: 400, code: -32700 })
      expect(errorOf(yield* post(token, ""))).toEqual({ status: 400, code: -32700 })
      expect(errorOf(yield* post(token, "42"))).toEqual({ status: 400, code: -32600 })
      expect(errorOf(yield* post(token, "[]"))).toEqual({ status: 400, code: -32600 })
      expect(errorOf(yield* post(token, JSON.stringify({ jsonrpc: "2.0", id: 7 })))).toEqual({ status: 400, code: -32600 })
      expect((yield* post(token, JSON.stringify({ jsonrpc: "2.0", id: 7 }))).body.id).toBe(7)
      expect(errorOf(yield* post(token, JSON.stringify({ jsonrpc: "1.0", id: 1, method: "ping" })))).toEqual({ status: 400, code: -32600 })
      expect(errorOf(yield* post(token, JSON.stringify({ jsonrpc: "2.0", id: null, method: "ping" })))).toEqual({ status: 400, code: -32600 })
      expect(errorOf(yield* post(token, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: [1] })))).toEqual({ status: 400, code: -32600 })

      expect(errorOf(yield* post(token, rpc("resources/list")))).toEqual({ status: 200, code: -32601 })
      expect(errorOf(yield* post(token, rpc("tools/call", {})))).toEqual({ status: 200, code: -32602 })
      expect(errorOf(yield* post(token, rpc("tools/call", { name: "drop_database" })))).toEqual({ status: 200, code: -32602 })
      expect(errorOf(yield* post(token, rpc("tools/call", { name: "get_run", arguments: "x" })))).toEqual({ status: 200, code: -32602 })
      expect(errorOf(yield* post(token, rpc("initialize", {})))).toEqual({ status: 200, code: -32602 })

      // Arguments the schema refuses: a tool error naming every field, for the agent to correct.
      const bad = yield* post(token, rpc("tools/call", { name: "list_runs", arguments: { limit: 500, status: "lost", cursor: 3 } }, "b"))
      expect(bad.status).toBe(200)
      expect(bad.body).toMatchObject({ jsonrpc: "2.0", id: "b", result: { isError: true } })
      const message = bad.body.result.content[0].text as string
      expect(message).toContain("limit must be an integer from 1 to 200")
      expect(message).toMatch(/status/)
      expect(message).toMatch(/cursor/)
      // (Accept without text/event-stream: a wait_for_run call is answered as JSON; see the SSE tests.)
      const badWait = yield* post(token, rpc("tools/call", { name: "wait_for_run", arguments: { runId: "nope", timeoutSeconds: 61 } }), {
        accept: "application/json"
      })
      expect(badWait.body.result.isError).toBe(true)
      expect(badWait.body.result.content[0].text).toContain("timeoutSeconds must be an integer from 0 to 60")
      expect(badWait.body.result.content[0].text).toContain("runId must be a run id (UUID)")
      const badCursor = yield* post(token, rpc("tools/call", { name: "list_runs", arguments: { cursor: "!!" } }))
      expect(badCursor.body.result).toMatchObject({ isError: true, content: [{ text: "cursor: invalid cursor" }] })

      // Notifications and client answers need no answer: 202, no body.
      const note = yield* post(token, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }))
      expect(note.status).toBe(202)
      expect(note.body).toBeUndefined()
      expect((yield* post(token, JSON.stringify({ jsonrpc: "2.0", id: 3, result: {} }))).status).toBe(202)
      // A batch (2025-03-26 clients): one answer per request, in order.
      const batch = yield* post(token, JSON.stringify([{ jsonrpc: "2.0", method: "notifications/initialized" }, JSON.parse(rpc("ping", undefined, 1)), JSON.parse(rpc("nope", undefined, 2))]))
      expect(batch.status).toBe(200)
      expect(batch.body).toEqual([{ jsonrpc: "2.0", id: 1, result: {} }, { jsonrpc: "2.0", id: 2, error: { code: -32601, message: "method not found: nope" } }])

      // Protocol revisions: the client's when supported, else the newest.
      const init = (protocolVersion: string) =>
        post(token, rpc("initialize", { protocolVersion, capabilities: {}, clientInfo: { name: "curl", version: "0" } }))
      expect((yield* init("2025-06-18")).body.result.protocolVersion).toBe("2025-06-18")
      expect((yield* init("2024-01-01")).body.result.protocolVersion).toBe("2025-11-25")
      expect(errorOf(yield* post(token, rpc("ping"), { "mcp-protocol-version": "1999-01-01" }))).toEqual({ status: 400, code: -32600 })
      expect((yield* post(token, rpc("ping"), { "mcp-protocol-version": "2025-06-18" })).status).toBe(200)

      // Credentials: none, another kind, a made-up one; a foreign Origin (DNS rebinding).
      expect((yield* post(undefined, rpc("ping"))).status).toBe(401)
      expect((yield* post("pwk_abc", rpc("ping"))).status).toBe(401)
      expect((yield* post("mcp_made_up", rpc("ping"))).status).toBe(401)
      expect((yield* post(token, rpc("ping"), { origin: "http://evil.example" })).status).toBe(403)
      expect((yield* post(token, rpc("ping"), { origin: "http://localhost:3000" })).status).toBe(200)
      // No server-initiated stream.
      const get = yield* call("GET", "/api/v1/mcp", { bearer: token })
      expect(get.status).toBe(405)
      expect(get.headers["allow"]).toBe("POST")
    }))

  it.scoped("SSE where a tool waits: the SDK client's wait_for_run is answered as an SSE stream with progress notifications while a worker completes the run", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const trigger = yield* createTrigger(env, { name: "streamed" })
      const token = yield* rotateToken(env, trigger.id)
      const baseUrl = yield* serverUrl
      // The content type of every answer, by the JSON-RPC method (or tool) it answered.
      const answeredAs: Array<[string, string]> = []
      const recording: typeof fetch = async (input, init) => {
        const response = await fetch(input, init)
        if (init?.method === "POST" && typeof init.body === "string") {
          const sent = JSON.parse(init.body)
          answeredAs.push([sent.params?.name ?? sent.method, (response.headers.get("content-type") ?? "").split(";")[0]!])
        }
        return response
      }
      const client = yield* Effect.acquireRelease(
        Effect.promise(async () => {
          const client = new Client({ name: "mcp-sse-test", version: "1.0.0" })
          await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/api/v1/mcp`), {
            requestInit: { headers: { authorization: `Bearer ${token}` } },
            fetch: recording
          }))
          return client
        }),
        (client) => Effect.promise(() => client.close())
      )
      const run = (yield* callTool(client, "run_trigger")).structuredContent

      const progress: Array<{ progress: number; total?: number; message?: string }> = []
      const waiting = yield* Effect.promise(() =>
        client.callTool({ name: "wait_for_run", arguments: { runId: run.id, timeoutSeconds: 30 } }, undefined, {
          onprogress: (p) => progress.push(p),
          resetTimeoutOnProgress: true
        })
      ).pipe(Effect.fork)
      yield* Effect.sleep("1500 millis")
      const { token: workerToken, workerId } = yield* registerWorker(env)
      const worker = yield* runWorker({
        baseUrl,
        credentials: { workerId, token: Redacted.make(workerToken) },
        handler: () => Effect.succeed({ status: "succeeded" as const })
      }).pipe(Effect.provide(fetchLayer), Effect.fork)
      const ended = (yield* Fiber.join(waiting)) as { isError?: boolean; structuredContent?: any }
      yield* Fiber.interrupt(worker)

      expect(ended.isError).toBeFalsy()
      expect(ended.structuredContent).toMatchObject({ id: run.id, status: "succeeded", workerId })
      // The wait reported the queued run at once, and each later state it saw.
      expect(progress[0]).toMatchObject({ total: 30, message: `run ${run.id} is queued` })
      for (let i = 1; i < progress.length; i++) expect(progress[i]!.progress).toBeGreaterThan(progress[i - 1]!.progress)
      // Only the waiting call streamed; everything else was answered as JSON.
      expect(answeredAs).toEqual([
        ["initialize", "application/json"],
        ["notifications/initialized", ""],
        ["run_trigger", "application/json"],
        ["wait_for_run", "text/event-stream"]
      ])
    }))

  it.scoped("SSE framing (raw fetch): text/event-stream, `event: message` events with one JSON-RPC message each, progress before the response, then the stream ends; JSON without SSE in Accept or for a tool that does not wait", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const trigger = yield* createTrigger(env, { name: "framed" })
      const token = yield* rotateToken(env, trigger.id)
      const baseUrl = yield* serverUrl
      const runId = yield* requestRun(env, trigger.id)
      const send = (accept: string, body: unknown) =>
        Effect.promise(async () => {
          const res = await fetch(`${baseUrl}/api/v1/mcp`, {
            method: "POST",
            headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept },
            body: JSON.stringify(body)
          })
          return { status: res.status, contentType: res.headers.get("content-type") ?? "", cacheControl: res.headers.get("cache-control"), text: await res.text() }
        })
      const wait = (meta?: Record<string, unknown>) => ({
        jsonrpc: "2.0",
        id: "w1",
        method: "tools/call",
        params: { name: "wait_for_run", arguments: { runId, timeoutSeconds: 2 }, ...(meta === undefined ? {} : { _meta: meta }) }
      })

      // No worker: the wait runs out after 2 s with the run still queued.
      const streamed = yield* send("application/json, text/event-stream", wait({ progressToken: "tok-1" }))
      expect(streamed.status).toBe(200)
      expect(streamed.contentType).toMatch(/^text\/event-stream/)
      expect(streamed.cacheControl).toBe("no-cache")
      // Blocks separated by a blank line; the answer ends with one; no ids (nothing to resume).
      expect(streamed.text.endsWith("\n\n")).toBe(true)
      const blocks = streamed.text.split("\n\n").filter((b) => b.length > 0 && !b.startsWith(":"))
      for (const block of blocks) {
        const lines = block.split("\n")
        expect(lines).toHaveLength(2)
        expect(lines[0]).toBe("event: message")
        expect(lines[1]).toMatch(/^data: \{/)
      }
      const messages = blocks.map((b) => JSON.parse(b.split("\n")[1]!.slice("data: ".length)))
      const response = messages.at(-1)
      expect(response).toMatchObject({ jsonrpc: "2.0", id: "w1", result: { structuredContent: { id: runId, status: "queued" } } })
      const notes = messages.slice(0, -1)
      expect(notes.length).toBeGreaterThanOrEqual(1)
      for (const note of notes) {
        expect(note).toMatchObject({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "tok-1", total: 2 } })
        expect(note.id).toBeUndefined()
      }
      expect(notes[0].params.message).toBe(`run ${runId} is queued`)

      // Without a progress token: the response alone.
      const bare = yield* send("text/event-stream, application/json", wait())
      expect(bare.contentType).toMatch(/^text\/event-stream/)
      const bareBlocks = bare.text.split("\n\n").filter((b) => b.length > 0 && !b.startsWith(":"))
      expect(bareBlocks).toHaveLength(1)
      expect(JSON.parse(bareBlocks[0]!.split("\n")[1]!.slice("data: ".length))).toMatchObject({ id: "w1", result: { structuredContent: { id: runId, status: "queued" } } })

      // JSON otherwise: Accept without text/event-stream, and a tool that answers at once.
      const plain = yield* send("application/json", { ...wait(), params: { name: "wait_for_run", arguments: { runId, timeoutSeconds: 0 } } })
      expect(plain.contentType).toMatch(/^application\/json/)
      expect(JSON.parse(plain.text)).toMatchObject({ id: "w1", result: { structuredContent: { id: runId, status: "queued" } } })
      const read = yield* send("application/json, text/event-stream", {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "get_run", arguments: { runId } }
      })
      expect(read.contentType).toMatch(/^application\/json/)
      expect(JSON.parse(read.text)).toMatchObject({ id: 2, result: { structuredContent: { id: runId } } })
    }))
})
