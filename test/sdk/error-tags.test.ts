import { expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { makeClient } from "../../src/index.js"
import { createTrigger, registerWorker, setupEnvironment } from "../support/Fixtures.js"
import { call, layer } from "../support/TestApp.js"
import { fetchLayer, requestRun, serverUrl } from "./support.js"

// Declared errors decode into tagged classes, so a client catches them by tag;
// the bodies on the wire stay `{error}` / `{error, details}` without a `_tag`.
withLayer(layer(), { excludeTestServices: true })("typed client errors by tag", (it) => {
  it.effect("404, 409 and 400 are caught with Effect.catchTag; the wire bodies carry no _tag", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const trigger = yield* createTrigger(env, { name: "tags" })
      const worker = yield* registerWorker(env, "tagged")
      const client = yield* makeClient(yield* serverUrl, { bearer: worker.token }).pipe(Effect.provide(fetchLayer))
      const runId = yield* requestRun(env, trigger.id)
      const polled = yield* client.workerProtocol.poll({ path: { id: worker.workerId }, urlParams: { claim: "true" } })
      expect(polled.runs.map((run) => run.id)).toEqual([runId])

      const missingRun = "01a2059a-8d10-7335-b62e-f1db70327ba4"
      const notFound = yield* client.workerProtocol.claim({ path: { id: worker.workerId, runId: missingRun } }).pipe(
        Effect.as("claimed"),
        Effect.catchTag("NotFound", (error) => Effect.succeed(`NotFound: ${error.error}`))
      )
      expect(notFound).toBe("NotFound: run not found")

      const conflict = yield* client.workerProtocol.claim({ path: { id: worker.workerId, runId } }).pipe(
        Effect.as("claimed"),
        Effect.catchTag("Conflict", (error) => Effect.succeed(`Conflict: ${error.error}`))
      )
      expect(conflict).toMatch(/^Conflict: cannot claim/)

      const invalid = yield* client.workerProtocol.poll({ path: { id: worker.workerId }, urlParams: { start: "true" } }).pipe(
        Effect.as(undefined),
        Effect.catchTag("ValidationError", (error) => Effect.succeed(error.details.fieldErrors))
      )
      expect(invalid).toEqual({ start: ["start=true needs claim=true"] })

      const raw = (path: string, method: "GET" | "POST" = "POST") => call(method, path, { bearer: worker.token })
      expect((yield* raw(`/api/v1/workers/${worker.workerId}/runs/${missingRun}/claim`)).body).toEqual({ error: "run not found" })
      const again = yield* raw(`/api/v1/workers/${worker.workerId}/runs/${runId}/claim`)
      expect(again.status).toBe(409)
      expect(Object.keys(again.body)).toEqual(["error"])
      const refused = yield* raw(`/api/v1/workers/${worker.workerId}/poll?start=true`, "GET")
      expect(refused.body).toEqual({
        error: "validation failed",
        details: { fieldErrors: { start: ["start=true needs claim=true"] }, formErrors: [] }
      })
    }))
})
