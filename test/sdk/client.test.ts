import { expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { identify, makeClient, NotFound, Unauthorized, WorkerUnauthorized } from "../../src/index.js"
import { createTrigger, mintApiKey, registerWorker, setupEnvironment } from "../support/Fixtures.js"
import { call, layer, origin } from "../support/TestApp.js"
import { fetchLayer, serverUrl } from "./support.js"

// The client keeps the HttpClient it was made with: fetch to the real port, while
// the fixtures use the test server's own client.
withLayer(layer(), { excludeTestServices: true })("typed client", (it) => {
  it.effect("calls endpoints with a pwk_ key and answers declared errors as their classes", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const baseUrl = yield* serverUrl
      const trigger = yield* createTrigger(env, { name: "typed", input: { a: 1 } })
      const key = yield* mintApiKey(env, "operator")
      const client = yield* makeClient(baseUrl, { bearer: key }).pipe(Effect.provide(fetchLayer))

      const run = yield* client.runs.requestRun({ path: { id: trigger.id }, headers: {}, payload: {} })
      expect(run).toMatchObject({ triggerId: trigger.id, status: "queued", input: { a: 1 } })
      const page = yield* client.runs.listTriggerRuns({ path: { id: trigger.id }, urlParams: {} })
      expect(page.items.map((r) => r.id)).toEqual([run.id])

      const missing = yield* client.triggers.get({ path: { id: "01a2059a-8d10-7335-b62e-f1db70327ba4" } }).pipe(Effect.flip)
      expect(missing).toBeInstanceOf(NotFound)

      const anonymous = yield* makeClient(baseUrl).pipe(Effect.provide(fetchLayer))
      const refused = yield* anonymous.triggers.get({ path: { id: trigger.id } }).pipe(Effect.flip)
      expect(refused).toBeInstanceOf(Unauthorized)
    }))

  it.effect("sends the session cookie with the configured Origin", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const baseUrl = yield* serverUrl
      const client = yield* makeClient(baseUrl, { cookie: env.user.cookie, origin }).pipe(Effect.provide(fetchLayer))
      const me = yield* client.auth.me()
      expect(me.id).toBe(env.user.id)
      const ws = yield* client.workspaces.create({ payload: { name: "from the client" } })
      expect(ws.name).toBe("from the client")
    }))

  it.effect("GET /workers/me names the token's worker; identify() turns a bare wkt_ token into credentials", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const worker = yield* registerWorker(env, "who-am-i")
      const me = yield* call("GET", "/api/v1/workers/me", { bearer: worker.token })
      expect(me.status).toBe(200)
      expect(me.body).toMatchObject({ id: worker.workerId, environmentId: env.environmentId, label: "who-am-i", status: "online" })
      expect((yield* call("GET", "/api/v1/workers/me")).status).toBe(401)
      const key = yield* mintApiKey(env, "admin")
      expect((yield* call("GET", "/api/v1/workers/me", { bearer: key })).status).toBe(401)

      const baseUrl = yield* serverUrl
      const credentials = yield* identify(baseUrl, worker.token).pipe(Effect.provide(fetchLayer))
      expect(credentials.workerId).toBe(worker.workerId)
      const refused = yield* identify(baseUrl, "wkt_not-a-real-token").pipe(Effect.provide(fetchLayer), Effect.flip)
      expect(refused).toBeInstanceOf(WorkerUnauthorized)
    }))
})
