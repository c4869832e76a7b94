import { describe, expect, it } from "@effect/vitest"
import { routeOf } from "../../src/App.js"
import * as RouteTemplates from "../../src/Observability/RouteTemplates.js"

describe("RouteTemplates", () => {
  // The service's own table, as App composes it.

  it("names an API request by its endpoint's template, never by its raw path or query", () => {
    expect(routeOf("/api/v1/runs/0192d5c3-0000-7000-8000-000000000000?x=secret")).toBe("/api/v1/runs/:id")
  })

  it("names the paths served beside the API, the worker channel among them", () => {
    expect(routeOf("/api/v1/workers/me/channel")).toBe("/api/v1/workers/me/channel")
    expect(routeOf("/health/ready")).toBe("/health/ready")
  })

  it("counts anything else as unmatched (bounded label cardinality)", () => {
    expect(routeOf("/wp-admin/setup.php")).toBe(RouteTemplates.unmatched)
  })
})
