import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { createTrigger, setupEnvironment } from "../support/Fixtures.js"
import { call } from "../support/TestApp.js"
import { databaseLocation, openDatabase, startInstance } from "../scheduler/instances.js"

// MCP tokens are looked up on every request, with no cache: a rotation or a
// delete on one instance refuses the old token on the other at its very next
// request (no waiting, no NOTIFY involved). Under the test clock, a time-based
// trust window could never end, so only the lookup can answer these 401s.

const ping = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" })

describe("MCP tokens on two instances of one Postgres database", () => {
  it.scoped("rotating on one instance and deleting the trigger there refuse the old token on the other at once", () =>
    Effect.gen(function*() {
      const location = yield* databaseLocation
      const a = yield* startInstance((yield* openDatabase(location)).context)
      const b = yield* startInstance((yield* openDatabase(location)).context)
      const env = yield* setupEnvironment("mcp").pipe(Effect.provide(a.context))
      const trigger = yield* createTrigger(env, { name: "shared" }).pipe(Effect.provide(a.context))
      const rotate = call("POST", `/api/v1/triggers/${trigger.id}/rotate-mcp-token`, { cookie: env.user.cookie }).pipe(
        Effect.provide(a.context),
        Effect.map((res) => res.body.mcpToken as string)
      )
      const onB = (token: string) =>
        call("POST", "/api/v1/mcp", { rawBody: ping, bearer: token }).pipe(Effect.provide(b.context), Effect.map((res) => res.status))

      const first = yield* rotate
      expect(yield* onB(first)).toBe(200)
      const second = yield* rotate
      expect(yield* onB(first)).toBe(401)
      expect(yield* onB(second)).toBe(200)

      const deleted = yield* call("DELETE", `/api/v1/triggers/${trigger.id}`, { cookie: env.user.cookie }).pipe(Effect.provide(a.context))
      expect(deleted.status).toBe(204)
      expect(yield* onB(second)).toBe(401)
    }), 120_000)
})
