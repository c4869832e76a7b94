import { expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as App from "../../src/App.js"
import { Forbidden } from "../../src/Contract/Domain/ApiErrors.js"
import { PipelineTriggersConfig } from "../../src/Embed/EmbedConfig.js"
import { PipelineTriggers } from "../../src/Embed/PipelineTriggers.js"
import { McpTools } from "../../src/Mcp/Tools.js"
import { createTrigger, mintApiKey, setupEnvironment } from "../support/Fixtures.js"
import { call, cookieOf, layer, origin } from "../support/TestApp.js"

/**
 * Requesting a run has four front doors: HTTP with an API key, HTTP with a
 * session cookie, the MCP tools and the embedding API. The access check is
 * the service's (`RunRequests.request`): each door refuses a viewer there,
 * before the input is read, and creates nothing.
 */

// The embedding's principal: registered over HTTP below, so the test can make it a viewer of the environment.
const principalEmail = `embedded-principal-${Date.now()}@example.com`

// The embedding API and the MCP tools on the same services as the HTTP server (the same layer values, so built once).
const doors = Layer.mergeAll(PipelineTriggers.Default, McpTools.Default).pipe(
  Layer.provide(App.layerBackground),
  Layer.provide(App.layerServices),
  Layer.provide(Layer.succeed(PipelineTriggersConfig, { ...PipelineTriggersConfig.defaults, principalEmail }))
)

withLayer(doors.pipe(Layer.provideMerge(layer())), { excludeTestServices: true })("who may request a run", (it) => {
  it.effect("every front door refuses a viewer (403, nothing created) and lets an operator through", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment("access")
      const trigger = yield* createTrigger(env)
      const registered = yield* call("POST", "/api/v1/auth/register", {
        body: { email: principalEmail, password: "correct horse battery" },
        headers: { origin }
      })
      expect(registered.status).toBe(201)
      const principal = { id: registered.body.id as string, cookie: cookieOf(registered) }
      const setRole = (role: string, method: "POST" | "PATCH") =>
        call(method, method === "POST" ? `/api/v1/environments/${env.environmentId}/members` : `/api/v1/environments/${env.environmentId}/members/${principal.id}`, {
          cookie: env.user.cookie,
          body: method === "POST" ? { userId: principal.id, role } : { role }
        })
      expect((yield* setRole("viewer", "POST")).status).toBe(201)
      const viewerKey = yield* mintApiKey(env, "viewer")
      const runPath = `/api/v1/triggers/${trigger.id}/run`
      const refused = { status: 403, body: { error: "insufficient role" } }

      // HTTP with a viewer's API key: its fast path is for operators, the check still answers 403,
      // before the body is read (a malformed one is not reported to a caller who may not run).
      expect(yield* call("POST", runPath, { bearer: viewerKey })).toMatchObject(refused)
      expect(yield* call("POST", runPath, { bearer: viewerKey, rawBody: "{" })).toMatchObject(refused)
      // HTTP with a viewer's session cookie.
      expect(yield* call("POST", runPath, { cookie: principal.cookie, body: { input: { a: 1 } } })).toMatchObject(refused)
      // MCP: the run_trigger tool for a grant whose role is viewer (a token grants operator; the check is the role's).
      const tools = yield* McpTools
      const grant = { triggerId: trigger.id, environmentId: env.environmentId }
      const byMcp = yield* tools.call({ ...grant, role: "viewer" }, "run_trigger", {})!
      expect(byMcp).toEqual({ content: [{ type: "text", text: "insufficient role" }], isError: true })
      // The embedding API, acting as a principal that is a viewer of the environment.
      const pipelines = yield* PipelineTriggers
      const byEmbedding = yield* Effect.flip(pipelines.startRun(trigger.id, { input: { a: 1 } }))
      expect(byEmbedding).toBeInstanceOf(Forbidden)
      expect(byEmbedding).toMatchObject({ error: "insufficient role" })

      const runsOfTrigger = Effect.map(
        call("GET", `/api/v1/triggers/${trigger.id}/runs`, { cookie: env.user.cookie }),
        (res) => (res.body.items as ReadonlyArray<{ readonly id: string }>).map((run) => run.id)
      )
      expect(yield* runsOfTrigger).toEqual([])

      // The same doors with an operator's role create runs: the refusals above are the role's.
      expect((yield* setRole("operator", "PATCH")).status).toBe(200)
      const operatorKey = yield* mintApiKey(env, "operator")
      const created = [
        (yield* call("POST", runPath, { bearer: operatorKey })).body.id,
        (yield* call("POST", runPath, { cookie: principal.cookie })).body.id,
        (yield* tools.call({ ...grant, role: "operator" }, "run_trigger", {})!).structuredContent?.id,
        (yield* pipelines.startRun(trigger.id)).id
      ]
      expect(created.every((id) => typeof id === "string")).toBe(true)
      expect([...(yield* runsOfTrigger)].sort()).toEqual([...created].sort())
    }))
})
