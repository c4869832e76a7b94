import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import { createServer } from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { layer as exampleLayer, main } from "../../examples/embed.js"
import { PipelineTriggers } from "../../src/index.js"
import * as TestDatabase from "../support/TestDatabase.js"

const tempDir = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "pipeline-embed-test-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

describe("embedding the scheduler", () => {
  it.live("the example program runs a trigger on its in-process worker and sees the terminal event", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const ended = yield* main.pipe(Effect.provide(exampleLayer(dir)))
      expect(ended).toMatchObject({ status: "succeeded", shortMessage: "hello, world", costUsd: "0.0001", faultClass: "none" })
      expect(ended.endedAt).toBeInstanceOf(Date)
      // The embedded database lives in the program's own directory.
      expect(fs.existsSync(path.join(dir, "pg"))).toBe(true)
    }).pipe(Effect.scoped), 60_000)

  it.live("the same program on the host's own SqlClient (Postgres when DATABASE_URL is set)", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const hostLayer = PipelineTriggers.layerHttp.pipe(
        Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
        Layer.provideMerge(PipelineTriggers.layerWith({ dataDir: dir })),
        Layer.provide(Layer.orDie(TestDatabase.layer))
      )
      const ended = yield* main.pipe(Effect.provide(hostLayer))
      expect(ended).toMatchObject({ status: "succeeded", shortMessage: "hello, world" })
    }).pipe(Effect.scoped), 60_000)

  it.live("the services validate like the API and read runs back", () =>
    Effect.gen(function*() {
      const pipelines = yield* PipelineTriggers.PipelineTriggers
      const env = yield* pipelines.createEnvironment("checks")
      const invalid = yield* pipelines.createTrigger(env.environmentId, { name: "", timeoutSeconds: 0 }).pipe(Effect.flip)
      expect(invalid).toMatchObject({ error: "validation failed" })
      expect(Object.keys((invalid as { details: { fieldErrors: object } }).details.fieldErrors).sort()).toEqual(["name", "timeoutSeconds"])

      const trigger = yield* pipelines.createTrigger(env.environmentId, { name: "nightly", input: { a: 1 } })
      expect(trigger).toMatchObject({ name: "nightly", timeoutSeconds: 3600, heartbeatTimeoutSeconds: 30, hasWebhookSecret: false })
      const run = yield* pipelines.startRun(trigger.id, { input: { a: 2 } })
      expect(run).toMatchObject({ status: "queued", triggerId: trigger.id, input: { a: 2 } })
      expect((yield* pipelines.getRun(run.id)).id).toBe(run.id)
      // Flow control II's options, checked as the REST body's are.
      const later = yield* pipelines.startRun(trigger.id, { delaySeconds: 600, priority: 60, ttlSeconds: 30 })
      expect(later).toMatchObject({ status: "queued", priority: 60, waitReason: "delayed" })
      expect(later.expiresAt!.getTime() - later.availableAt!.getTime()).toBe(30_000)
      const both = yield* pipelines.startRun(trigger.id, { delaySeconds: 5, runAt: new Date(Date.now() + 60_000) }).pipe(Effect.flip)
      expect(Object.keys((both as { details: { fieldErrors: object } }).details.fieldErrors)).toEqual(["runAt"])
      const past = yield* pipelines.startRun(trigger.id, { runAt: new Date(Date.now() - 60_000) }).pipe(Effect.flip)
      expect(Object.keys((past as { details: { fieldErrors: object } }).details.fieldErrors)).toEqual(["runAt"])
      yield* pipelines.getRun(later.id)
      expect((yield* pipelines.listRuns({ triggerId: trigger.id })).map((r) => r.id)).toEqual([later.id, run.id])
      expect(yield* pipelines.getRun("not-a-uuid").pipe(Effect.flip)).toMatchObject({ error: "run not found" })
      expect(yield* pipelines.startRun("01a2059a-8d10-7335-b62e-f1db70327ba4").pipe(Effect.flip)).toMatchObject({ error: "trigger not found" })
      expect(yield* pipelines.mintRegistrationToken(env.environmentId)).toMatch(/^wrk_/)
    }).pipe(Effect.provide(PipelineTriggers.layerEmbedded({
      inMemory: true,
      // Given secrets: nothing is generated or written to disk.
      secretsKey: Option.some(Redacted.make(randomBytes(32).toString("base64"))),
      jwtSecret: Option.some(Redacted.make(randomBytes(48).toString("base64")))
    }))), 60_000)
})
