import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { setupEnvironment } from "../support/Fixtures.js"
import { call } from "../support/TestApp.js"
import { databaseLocation, openDatabase, startInstance } from "../scheduler/instances.js"

// A deleted API key is refused at once on every instance. Each instance trusts
// a key it verified for a window (1 s); under the test clock that window never
// ends, so a 401 on the other instance can only come from the deletion's NOTIFY.

const realPause = (ms: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))

describe("deleting an API key (two instances on one Postgres database)", () => {
  it.scoped("the other instance refuses the key as soon as the deletion is announced, inside its trust window", () =>
    Effect.gen(function*() {
      const location = yield* databaseLocation
      const a = yield* startInstance((yield* openDatabase(location)).context)
      const b = yield* startInstance((yield* openDatabase(location)).context)
      const env = yield* setupEnvironment("keys").pipe(Effect.provide(a.context))
      const key = yield* call("POST", `/api/v1/environments/${env.environmentId}/api-keys`, {
        cookie: env.user.cookie,
        body: { name: "script", prefix: "pwk", role: "admin" }
      }).pipe(Effect.provide(a.context))
      expect(key.status).toBe(201)
      const listing = `/api/v1/environments/${env.environmentId}/triggers`
      const onB = call("GET", listing, { bearer: key.body.token }).pipe(Effect.provide(b.context))
      // B verifies the key and now trusts it (the test clock never ends its window).
      expect((yield* onB).status).toBe(200)
      expect((yield* onB).status).toBe(200)

      const deleted = yield* call("DELETE", `/api/v1/environments/${env.environmentId}/api-keys/${key.body.id}`, {
        cookie: env.user.cookie
      }).pipe(Effect.provide(a.context))
      expect(deleted.status).toBe(204)
      const deadline = Date.now() + 10_000
      let status = 200
      while (status === 200 && Date.now() < deadline) {
        status = (yield* onB).status
        if (status === 200) yield* realPause(20)
      }
      expect(status).toBe(401)
    }), 120_000)
})
