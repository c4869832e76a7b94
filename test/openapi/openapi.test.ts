import { Validator } from "@seriousme/openapi-schema-validator"
import { expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { auditActions } from "../../src/Contract/AuditApi.js"
import { setupEnvironment } from "../support/Fixtures.js"
import { call, layer } from "../support/TestApp.js"

type Operation = {
  readonly operationId: string
  readonly summary?: string
  readonly description?: string
  readonly parameters?: ReadonlyArray<{ readonly name: string; readonly in: string; readonly schema: Record<string, unknown> }>
  readonly requestBody?: unknown
  readonly security?: ReadonlyArray<unknown>
  readonly responses: Record<string, { readonly content?: Record<string, { readonly schema?: Record<string, unknown> }> }>
}

const operationsOf = (doc: any): Array<[string, string, Operation]> =>
  Object.entries<Record<string, Operation>>(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]): [string, string, Operation] => [method.toUpperCase(), path, op])
  )

withLayer(layer(), { excludeTestServices: true })("the OpenAPI document", (it) => {
  it.effect("is a valid OpenAPI 3.1 document", () =>
    Effect.gen(function*() {
      const res = yield* call("GET", "/api/v1/openapi.json")
      expect(res.status).toBe(200)
      expect(res.body.openapi).toMatch(/^3\.1\./)
      const result = yield* Effect.promise(() => new Validator().validate(res.body))
      expect(result.errors ?? []).toEqual([])
      expect(result.valid).toBe(true)
    }))

  it.effect("lists the audit actions of the contract as the record's action enum", () =>
    Effect.gen(function*() {
      const doc = (yield* call("GET", "/api/v1/openapi.json")).body
      expect(doc.components.schemas.AuditAction.enum).toEqual([...auditActions])
    }))

  it.effect("every operation has a summary and a description, and only the statuses it can answer", () =>
    Effect.gen(function*() {
      const doc = (yield* call("GET", "/api/v1/openapi.json")).body
      const operations = operationsOf(doc)
      expect(operations.length).toBeGreaterThanOrEqual(42)
      for (const [method, path, op] of operations) {
        const name = `${method} ${path}`
        expect(op.summary, name).toMatch(/\S/)
        expect(op.description, name).toMatch(/\S/)
        const statuses = Object.keys(op.responses)
        const params = op.parameters ?? []
        if (op.requestBody === undefined) {
          expect(statuses, `${name}: 413 without a body`).not.toContain("413")
          if (!params.some((p) => p.in === "query" || p.in === "header")) {
            expect(statuses, `${name}: 400 with nothing to validate`).not.toContain("400")
          }
        }
        if ((op.security ?? []).length === 0 && !["POST /api/v1/auth/login", "POST /api/v1/workers/register"].includes(name)) {
          expect(statuses, `${name}: 401 without credentials`).not.toContain("401")
        }
        // One schema per status: no anyOf listing the same error twice.
        for (const response of Object.values(op.responses)) {
          const anyOf = response.content?.["application/json"]?.schema?.anyOf as ReadonlyArray<unknown> | undefined
          if (anyOf !== undefined) expect(new Set(anyOf.map((s) => JSON.stringify(s))).size, name).toBe(anyOf.length)
        }
      }
      const byName = new Map(operations.map(([method, path, op]) => [`${method} ${path}`, op]))
      expect(Object.keys(byName.get("GET /api/v1/health")!.responses).sort()).toEqual(["200", "500", "503"])
      // A repeated Idempotency-Key answers 200 with the first run.
      expect(Object.keys(byName.get("POST /api/v1/triggers/{id}/run")!.responses)).toEqual(expect.arrayContaining(["200", "201"]))
    }))

  it.effect("GET /workers/me names the worker channel (a WebSocket, outside the document) and its discovery header", () =>
    Effect.gen(function*() {
      const doc = (yield* call("GET", "/api/v1/openapi.json")).body
      const me = doc.paths["/api/v1/workers/me"].get as Operation
      expect(me.description).toContain("`x-worker-channel`")
      expect(me.description).toContain("`/api/v1/workers/me/channel`")
      expect(doc.paths["/api/v1/workers/me/channel"]).toBeUndefined()
    }))

  it.effect("parameters carry their real types, bounds and defaults", () =>
    Effect.gen(function*() {
      const doc = (yield* call("GET", "/api/v1/openapi.json")).body
      const text = JSON.stringify(doc)
      expect(text).not.toContain("a string to be decoded into a number")
      const params = (name: string) => {
        const op = operationsOf(doc).find(([m, p]) => `${m} ${p}` === name)![2]
        return new Map((op.parameters ?? []).map((p) => [p.name, p.schema]))
      }
      expect(params("GET /api/v1/workers/{id}/poll").get("wait")).toMatchObject({ type: "integer", minimum: 0, maximum: 30, default: 0 })
      expect(params("GET /api/v1/workers/{id}/poll").get("max")).toMatchObject({ type: "integer", minimum: 1, maximum: 100, default: 1 })
      expect(params("GET /api/v1/environments/{envId}/runs").get("limit")).toMatchObject({ type: "integer", minimum: 1, maximum: 200, default: 50 })

      // Trigger defaults, and that the worker runs the trigger's `command` with the input as data, are in the document.
      const create = operationsOf(doc).find(([m, p]) => `${m} ${p}` === "POST /api/v1/environments/{envId}/triggers")![2]
      const body = JSON.stringify(create.requestBody)
      const resolved = body.includes("$ref") ? text : body
      expect(resolved).toMatch(/"timeoutSeconds":\{[^}]*"default":3600/)
      expect(resolved).toMatch(/"heartbeatTimeoutSeconds":\{[^}]*"default":30/)
      expect(resolved).toMatch(/"maxRetries":\{[^}]*"default":0/)
      expect(text).toContain("the trigger's `command` with the whole input on stdin")
      expect(text).not.toContain("input.command")
    }))

  it.effect("says unknown request fields are ignored, and they are: no schema is closed", () =>
    Effect.gen(function*() {
      const doc = (yield* call("GET", "/api/v1/openapi.json")).body
      expect(JSON.stringify(doc)).not.toContain(`"additionalProperties":false`)
      expect(doc.info.description).toContain("unknown fields in them are ignored")
      const env = yield* setupEnvironment()
      const res = yield* call("POST", `/api/v1/environments/${env.environmentId}/triggers`, {
        cookie: env.user.cookie,
        body: { name: "extra", extra: 1 }
      })
      expect(res.status).toBe(201)
      expect(res.body).not.toHaveProperty("extra")
    }))
})
