import { describe, expect, it, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { randomBytes } from "node:crypto"
import { makeClient, PipelineTriggers } from "../../src/index.js"
import { setupEnvironment } from "../support/Fixtures.js"
import { layer, origin } from "../support/TestApp.js"
import { fetchLayer, serverUrl } from "../sdk/support.js"

/** The typed client and the embedding layer take and answer `schedule` as the HTTP API does. */

withLayer(layer(), { excludeTestServices: true })("schedules through the typed client", (it) => {
  it.effect("create with a schedule, read nextRunAt as a Date, PATCH it to null; a bad zone refused with the API's message", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const client = yield* makeClient(yield* serverUrl, { cookie: env.user.cookie, origin }).pipe(Effect.provide(fetchLayer))
      const created = yield* client.triggers.create({
        path: { envId: env.environmentId },
        payload: { name: "nightly", schedule: { cron: "30 2 * * *", timezone: "Europe/Berlin" } }
      })
      expect(created.schedule).toEqual({ cron: "30 2 * * *", timezone: "Europe/Berlin", catchUp: "latest" })
      expect(created.nextRunAt).toBeInstanceOf(Date)
      expect(created.nextRunAt!.getUTCMinutes()).toBe(30)
      const read = yield* client.triggers.get({ path: { id: created.id } })
      expect(read.nextRunAt).toEqual(created.nextRunAt)

      const stopped = yield* client.triggers.update({ path: { id: created.id }, payload: { schedule: null } })
      expect(stopped).toMatchObject({ schedule: null, nextRunAt: null })

      const refused = yield* client.triggers.create({
        path: { envId: env.environmentId },
        payload: { name: "bad", schedule: { cron: "* * * * *", timezone: "Mars/Olympus" } }
      }).pipe(Effect.flip)
      // The client encodes the payload with the API's own schema: refused before it is sent, for the same reason.
      expect(refused).toMatchObject({ _tag: "ParseError" })
      expect(String(refused)).toContain("timezone must be an IANA time zone name")
    }))
})

describe("schedules through the embedding layer", () => {
  it.live("createTrigger takes a schedule; its every-second ticks start runs on the embedded instance", () =>
    Effect.gen(function*() {
      const pipelines = yield* PipelineTriggers.PipelineTriggers
      const env = yield* pipelines.createEnvironment("scheduled")
      const trigger = yield* pipelines.createTrigger(env.environmentId, {
        name: "every second",
        input: { job: "sync" },
        schedule: { cron: "* * * * * *", catchUp: "none" }
      })
      expect(trigger.schedule).toEqual({ cron: "* * * * * *", timezone: "UTC", catchUp: "none" })
      expect(trigger.nextRunAt).toBeInstanceOf(Date)
      // Real time: the embedding layers run the scheduling fiber too.
      let runs = yield* pipelines.listRuns({ triggerId: trigger.id })
      for (let i = 0; i < 100 && runs.length === 0; i++) {
        yield* Effect.sleep("100 millis")
        runs = yield* pipelines.listRuns({ triggerId: trigger.id })
      }
      expect(runs.length).toBeGreaterThan(0)
      expect(runs[0]).toMatchObject({ triggerId: trigger.id, input: { job: "sync" } })

      const invalid = yield* pipelines.createTrigger(env.environmentId, { name: "bad", schedule: { cron: "61 * * * *" } }).pipe(Effect.flip)
      expect(Object.keys((invalid as { details: { fieldErrors: object } }).details.fieldErrors)).toEqual(["schedule"])
    }).pipe(Effect.provide(PipelineTriggers.layerEmbedded({
      inMemory: true,
      secretsKey: Option.some(Redacted.make(randomBytes(32).toString("base64"))),
      jwtSecret: Option.some(Redacted.make(randomBytes(48).toString("base64")))
    }))), 60_000)
})
