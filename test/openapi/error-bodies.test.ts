import * as OpenApi from "@effect/platform/OpenApi"
import { describe, expect, it } from "@effect/vitest"
import { Api } from "../../src/Contract/Api.js"

// The error classes carry a `_tag` once decoded; the API registers their wire
// forms, so no error response in the document may describe a `_tag`.
describe("error responses in the OpenAPI document", () => {
  it("describe the contract's bodies, never a _tag", () => {
    const doc: any = OpenApi.fromApi(Api)
    const schemas = doc.components.schemas
    const errorRefs = new Set<string>()
    for (const operations of Object.values<any>(doc.paths)) {
      for (const operation of Object.values<any>(operations)) {
        for (const [status, response] of Object.entries<any>(operation.responses)) {
          if (Number(status) < 400) continue
          const schema = response.content?.["application/json"]?.schema
          for (const ref of JSON.stringify(schema ?? {}).matchAll(/#\/components\/schemas\/(\w+)/g)) errorRefs.add(ref[1]!)
        }
      }
    }
    expect([...errorRefs]).toEqual(expect.arrayContaining(["NotFound", "Conflict", "Forbidden", "Unauthorized", "ValidationError"]))
    for (const name of errorRefs) {
      expect(Object.keys(schemas[name].properties ?? {}), name).not.toContain("_tag")
    }
    expect(schemas.NotFound).toMatchObject({ type: "object", required: ["error"], properties: { error: { type: "string" } } })
    expect(schemas.ValidationError.required).toEqual(["error", "details"])
  })
})
