import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { randomBytes } from "node:crypto"
import { PipelineTriggers } from "../../src/index.js"
import { createTrigger, mintApiKey, registerWorker, setupEnvironment, type TestEnv } from "../support/Fixtures.js"
import { call, layer } from "../support/TestApp.js"

/** A schema with a required string, an integer range and a nested array of objects. */
const schema = {
  type: "object",
  properties: {
    ref: { type: "string", minLength: 1 },
    count: { type: "integer", minimum: 1, maximum: 10 },
    steps: { type: "array", items: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } }
  },
  required: ["ref"]
}

/** What is stored for the trigger: its runs and their `run.requested` audit rows. */
const storedFor = (triggerId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ runs: number; audits: number }>`
      SELECT (SELECT count(*)::int FROM runs WHERE trigger_id = ${triggerId}) AS runs,
             (SELECT count(*)::int FROM audit_log WHERE action = 'run.requested' AND metadata->>'triggerId' = ${triggerId}) AS audits`
  ).pipe(Effect.map(([row]) => row!), Effect.orDie)

const mcpPost = (token: string, id: number, method: string, params?: Record<string, unknown>) =>
  call("POST", "/api/v1/mcp", {
    rawBody: JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) }),
    headers: { accept: "application/json, text/event-stream", authorization: `Bearer ${token}`, "mcp-protocol-version": "2025-06-18" }
  })

const rotateToken = (env: TestEnv, triggerId: string) =>
  Effect.map(call("POST", `/api/v1/triggers/${triggerId}/rotate-mcp-token`, { cookie: env.user.cookie }), (res) => res.body.mcpToken as string)

withLayer(layer(), { excludeTestServices: true })("a trigger's inputSchema", (it) => {
  describe("on the trigger", () => {
    it.effect("is read back; an unusable schema, or a default input that does not match it, is a 400 naming the field", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const path = `/api/v1/environments/${env.environmentId}/triggers`
        const created = yield* call("POST", path, { cookie: env.user.cookie, body: { name: "typed", inputSchema: schema, input: { ref: "main" } } })
        expect(created.status).toBe(201)
        expect(created.body.inputSchema).toEqual(schema)

        for (
          const [bad, says] of [
            [{ type: "objekt" }, /inputSchema|type/],
            [{ type: "object", requird: ["ref"] }, /unknown keyword: "requird"/],
            [{ $ref: "https://example.com/schema.json" }, /can't resolve reference/],
            [{ type: "string", format: "emale" }, /unknown format "emale"/],
            ["object", /must be a JSON Schema/]
          ] as const
        ) {
          const res = yield* call("POST", path, { cookie: env.user.cookie, body: { name: "bad", inputSchema: bad } })
          expect(res.status, JSON.stringify(bad)).toBe(400)
          expect(Object.keys(res.body.details.fieldErrors)).toEqual(["inputSchema"])
          expect(res.body.details.fieldErrors.inputSchema[0]).toMatch(says)
        }
        const mismatch = yield* call("POST", path, { cookie: env.user.cookie, body: { name: "bad", inputSchema: schema, input: { ref: 7 } } })
        expect(mismatch.status).toBe(400)
        expect(mismatch.body.details.fieldErrors).toEqual({ input: ["does not match inputSchema: input.ref: must be string"] })

        // A PATCH is checked against the trigger as it will be: a new schema the stored input does not match is refused.
        const one = `/api/v1/triggers/${created.body.id}`
        const narrower = yield* call("PATCH", one, { cookie: env.user.cookie, body: { inputSchema: { ...schema, required: ["ref", "count"] } } })
        expect(narrower.status).toBe(400)
        expect(narrower.body.details.fieldErrors.input[0]).toContain("input.count: is required")
        const both = yield* call("PATCH", one, {
          cookie: env.user.cookie,
          body: { inputSchema: { ...schema, required: ["ref", "count"] }, input: { ref: "main", count: 2 } }
        })
        expect(both.status).toBe(200)
        expect(both.body.inputSchema.required).toEqual(["ref", "count"])
        const cleared = yield* call("PATCH", one, { cookie: env.user.cookie, body: { inputSchema: null } })
        expect(cleared.body.inputSchema).toBeNull()
      }))
  })

  describe("what the worker is handed", () => {
    it.effect("a run's trigger.command is the trigger's, whatever the run's input says; the input comes as data", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const key = yield* mintApiKey(env, "operator")
        const worker = yield* registerWorker(env)
        const trigger = yield* createTrigger(env, { name: "build", command: "make build", workerId: worker.workerId })
        const injected = { command: "id; hostname" }
        const requested = yield* call("POST", `/api/v1/triggers/${trigger.id}/run`, { bearer: key, body: { input: injected } })
        expect(requested.status).toBe(201)
        // A plain poll (REST), then a claiming one: the same summary either way.
        const polled = yield* call("GET", `/api/v1/workers/${worker.workerId}/poll`, { bearer: worker.token })
        expect(polled.body.runs.map((r: any) => [r.input, r.trigger.command])).toEqual([[injected, "make build"]])
        const claimed = yield* call("GET", `/api/v1/workers/${worker.workerId}/poll?claim=true`, { bearer: worker.token })
        expect(claimed.body.runs.map((r: any) => [r.status, r.trigger.command])).toEqual([["claimed", "make build"]])
      }))
  })

  describe("every run request is checked against it; a refusal is a 400 naming the path, and nothing is stored", () => {
    it.effect("POST /triggers/{id}/run with an operator key and with a cookie", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const key = yield* mintApiKey(env, "operator")
        const trigger = yield* createTrigger(env, { name: "typed", command: "make", inputSchema: schema, input: { ref: "main" } })
        const run = (body: unknown, auth: { bearer?: string; cookie?: string }) =>
          call("POST", `/api/v1/triggers/${trigger.id}/run`, { ...auth, body })

        for (const auth of [{ bearer: key }, { cookie: env.user.cookie }]) {
          const refused = yield* run({ input: { count: 11, steps: [{ name: "a" }, {}] } }, auth)
          expect(refused.status).toBe(400)
          expect(refused.body.error).toBe(
            "input does not match the trigger's inputSchema: input.ref: is required; input.count: must be <= 10; input.steps[1].name: is required"
          )
          expect(refused.body.details).toEqual({
            fieldErrors: { input: ["input.ref: is required", "input.count: must be <= 10", "input.steps[1].name: is required"] },
            formErrors: []
          })
          // Not an object at all; and with an Idempotency-Key, a refused request leaves no run to replay.
          const scalar = yield* call("POST", `/api/v1/triggers/${trigger.id}/run`, {
            ...auth,
            body: { input: "main" },
            headers: { "idempotency-key": "k-1" }
          })
          expect(scalar.status).toBe(400)
          expect(scalar.body.details.fieldErrors.input).toEqual(["input: must be object"])
        }
        expect(yield* storedFor(trigger.id)).toEqual({ runs: 0, audits: 0 })

        // Valid inputs, and no input (the trigger's own, which matches), are runs.
        const ok = yield* run({ input: { ref: "v2", count: 3 } }, { bearer: key })
        expect(ok.status).toBe(201)
        expect(ok.body.input).toEqual({ ref: "v2", count: 3 })
        const byDefault = yield* run(undefined, { cookie: env.user.cookie })
        expect(byDefault.status).toBe(201)
        expect(byDefault.body.input).toEqual({ ref: "main" })
        expect(yield* storedFor(trigger.id)).toEqual({ runs: 2, audits: 2 })
      }))

    it.effect("requests grouped into one creating statement are answered each on its own: valid ones are runs, the others 400s", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const key = yield* mintApiKey(env, "operator")
        const trigger = yield* createTrigger(env, { name: "typed", command: "make", inputSchema: schema, input: { ref: "main" } })
        const answers = yield* Effect.forEach(
          Array.from({ length: 30 }, (_, i) => i),
          (i) => call("POST", `/api/v1/triggers/${trigger.id}/run`, { bearer: key, body: { input: i % 3 === 0 ? { count: i } : { ref: `r${i}` } } }),
          { concurrency: "unbounded" }
        )
        expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 30 }, (_, i) => i % 3 === 0 ? 400 : 201))
        expect(yield* storedFor(trigger.id)).toEqual({ runs: 20, audits: 20 })
      }))

    it.effect("a schema changed behind this instance's back (another instance's PATCH) applies to the next request", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const key = yield* mintApiKey(env, "operator")
        const trigger = yield* createTrigger(env, { name: "typed", command: "make" })
        const run = (input: unknown) => call("POST", `/api/v1/triggers/${trigger.id}/run`, { bearer: key, body: { input } })
        // This instance now keeps the trigger's rules: no schema.
        expect((yield* run({ anything: true })).status).toBe(201)
        // Another instance declares a schema: only the database sees it, nothing tells this instance.
        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE triggers SET input_schema = ${JSON.stringify(schema)}::jsonb, updated_at = now() WHERE id = ${trigger.id}`.pipe(Effect.orDie)
        const refused = yield* run({ anything: true })
        expect(refused.status).toBe(400)
        expect(refused.body.details.fieldErrors.input).toEqual(["input.ref: is required"])
        expect((yield* storedFor(trigger.id)).runs).toBe(1)
        expect((yield* run({ ref: "main" })).status).toBe(201)
        // And loosened there: an input the kept rules refuse is checked against the trigger as it is now.
        yield* sql`UPDATE triggers SET input_schema = '{"type": "object"}'::jsonb, updated_at = now() WHERE id = ${trigger.id}`.pipe(Effect.orDie)
        expect((yield* run({ anything: true })).status).toBe(201)
        expect((yield* storedFor(trigger.id)).runs).toBe(3)
      }))

    it.effect("a run of a trigger in another environment is still 404 for a key, never the other trigger's schema", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const other = yield* setupEnvironment()
        const key = yield* mintApiKey(env, "operator")
        const theirs = yield* createTrigger(other, { name: "theirs", inputSchema: schema })
        const res = yield* call("POST", `/api/v1/triggers/${theirs.id}/run`, { bearer: key, body: { input: {} } })
        expect(res.status).toBe(404)
        expect(JSON.stringify(res.body)).not.toContain("input.ref")
      }))

    it.effect("MCP: tools/list shows the schema as run_trigger's input; run_trigger with a bad input is an error naming the path", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const trigger = yield* createTrigger(env, {
          name: "typed",
          command: "make",
          inputSchema: { ...schema, $defs: { name: { type: "string" } }, properties: { ...schema.properties, label: { $ref: "#/$defs/name" } } }
        })
        const token = yield* rotateToken(env, trigger.id)
        const listed = yield* mcpPost(token, 1, "tools/list")
        const runTrigger = listed.body.result.tools.find((t: any) => t.name === "run_trigger")
        // No default input: the agent must send one, of the trigger's shape (its local references rebased).
        expect(runTrigger.inputSchema.required).toEqual(["input"])
        expect(runTrigger.inputSchema.properties.input).toMatchObject({
          type: "object",
          required: ["ref"],
          properties: { ref: { type: "string", minLength: 1 }, label: { $ref: "#/properties/input/$defs/name" } }
        })
        expect(runTrigger.inputSchema.properties.idempotencyKey).toBeDefined()
        const described = yield* mcpPost(token, 2, "tools/call", { name: "describe_trigger", arguments: {} })
        expect(described.body.result.structuredContent.inputSchema.required).toEqual(["ref"])

        const refused = yield* mcpPost(token, 3, "tools/call", { name: "run_trigger", arguments: { input: { ref: "" } } })
        expect(refused.body.result.isError).toBe(true)
        expect(refused.body.result.content[0].text).toBe("input does not match the trigger's inputSchema: input.ref: must NOT have fewer than 1 characters")
        const missing = yield* mcpPost(token, 4, "tools/call", { name: "run_trigger", arguments: {} })
        expect(missing.body.result.isError).toBe(true)
        expect(missing.body.result.content[0].text).toContain("input: must be object")
        expect(yield* storedFor(trigger.id)).toEqual({ runs: 0, audits: 0 })

        const ok = yield* mcpPost(token, 5, "tools/call", { name: "run_trigger", arguments: { input: { ref: "main" } } })
        expect(ok.body.result.isError).toBeUndefined()
        expect((yield* storedFor(trigger.id)).runs).toBe(1)
      }))

    it.effect("without a schema, tools/list's run_trigger is unchanged and any input is a run", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const trigger = yield* createTrigger(env, { name: "untyped" })
        const token = yield* rotateToken(env, trigger.id)
        const listed = yield* mcpPost(token, 1, "tools/list")
        const runTrigger = listed.body.result.tools.find((t: any) => t.name === "run_trigger")
        expect(runTrigger.inputSchema.required ?? []).toEqual([])
        expect(runTrigger.inputSchema.properties.input.type).toBeUndefined()
        const ok = yield* mcpPost(token, 2, "tools/call", { name: "run_trigger", arguments: { input: [1, "two", { three: null }] } })
        expect(ok.body.result.isError).toBeUndefined()
        expect((yield* storedFor(trigger.id)).runs).toBe(1)
      }))
  })
})

describe("the embedding API", () => {
  it.live("startRun checks the input like the API: a ValidationError naming the path, and nothing stored", () =>
    Effect.gen(function*() {
      const pipelines = yield* PipelineTriggers.PipelineTriggers
      const env = yield* pipelines.createEnvironment("typed")
      const trigger = yield* pipelines.createTrigger(env.environmentId, { name: "typed", command: "make", inputSchema: schema })
      const refused = yield* pipelines.startRun(trigger.id, { input: { ref: 1 } }).pipe(Effect.flip)
      expect(refused).toMatchObject({
        error: "input does not match the trigger's inputSchema: input.ref: must be string",
        details: { fieldErrors: { input: ["input.ref: must be string"] } }
      })
      // No input and no default input: null is not an object.
      expect(yield* pipelines.startRun(trigger.id).pipe(Effect.flip)).toMatchObject({ details: { fieldErrors: { input: ["input: must be object"] } } })
      expect(yield* pipelines.listRuns({ triggerId: trigger.id })).toEqual([])
      const run = yield* pipelines.startRun(trigger.id, { input: { ref: "main" } })
      expect(run.input).toEqual({ ref: "main" })
    }).pipe(Effect.provide(PipelineTriggers.layerEmbedded({
      inMemory: true,
      secretsKey: Option.some(Redacted.make(randomBytes(32).toString("base64"))),
      jwtSecret: Option.some(Redacted.make(randomBytes(48).toString("base64")))
    }))), 60_000)
})
