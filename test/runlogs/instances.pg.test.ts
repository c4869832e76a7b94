import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { RunLogsConfig } from "../../src/RunLogs/RunLogs.js"
import { openSse } from "../events/sse.js"
import { appLayer, databaseLocation, openDatabase, type Db } from "../scheduler/instances.js"
import { createTrigger, registerWorker, setupEnvironment } from "../support/Fixtures.js"
import { call } from "../support/TestApp.js"
import { appendLogs, parseEvents, step } from "./support.js"

/**
 * An instance whose followers look for new lines only once a minute on their
 * own: within the test, a line reaches them only by a wake-up (another
 * instance's NOTIFY).
 */
const startInstance = (db: Context.Context<Db>) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    yield* Effect.addFinalizer(() => Scope.close(scope, Exit.void))
    return yield* Layer.buildWithScope(
      appLayer(db).pipe(Layer.provide(Layer.succeed(RunLogsConfig, { pollIntervalMillis: 60_000 }))),
      scope
    )
  })

const lines = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => ({ stream: "stdout", text: `line ${from + i}` }))

describe("run logs across instances (Postgres)", () => {
  it.scopedLive("lines written through instance A reach a follower on instance B at once; it resumes on A after the last id, none lost or twice", () =>
    Effect.gen(function*() {
      const location = yield* databaseLocation
      const dbA = yield* openDatabase(location)
      const dbB = yield* openDatabase(location)
      yield* Effect.addFinalizer(() => Effect.zipRight(dbA.close, dbB.close))
      const a = yield* startInstance(dbA.context)
      const b = yield* startInstance(dbB.context)
      const onA = <X, E, R>(effect: Effect.Effect<X, E, R>) => Effect.provide(effect, a)
      const onB = <X, E, R>(effect: Effect.Effect<X, E, R>) => Effect.provide(effect, b)

      const env = yield* onA(setupEnvironment())
      const trigger = yield* onA(createTrigger(env, { heartbeatTimeoutSeconds: 300 }))
      const worker = yield* onA(registerWorker(env))
      const created = yield* onA(call("POST", `/api/v1/triggers/${trigger.id}/run`, { cookie: env.user.cookie }))
      const runId = created.body.id as string
      expect((yield* onA(step(worker, runId, "claim"))).status).toBe(200)
      expect((yield* onA(step(worker, runId, "start"))).status).toBe(200)

      const onBFollower = yield* onB(openSse(`/api/v1/runs/${runId}/logs?follow=1`, { cookie: env.user.cookie }))
      yield* onBFollower.until((text) => text.startsWith(": connected"), "the first comment line")
      const started = Date.now()
      expect((yield* onA(appendLogs(worker, runId, { sequence: 1, lines: lines(1, 5) }))).status).toBe(200)
      yield* onBFollower.until((text) => parseEvents(text).length === 5, "the lines on B")
      // Well before B's own once-a-minute look: woken by A's NOTIFY.
      expect(Date.now() - started).toBeLessThan(10_000)
      // A resend through B (the worker reconnected elsewhere after a lost answer) is stored once.
      expect((yield* onB(appendLogs(worker, runId, { sequence: 4, lines: lines(4, 8) }))).body).toEqual({ stored: 3, duplicates: 2, dropped: 0 })
      yield* onBFollower.until((text) => parseEvents(text).length === 8, "the new lines on B")

      // The follower reconnects to A with the last id it saw; more lines come meanwhile.
      const lastId = parseEvents(onBFollower.text()).at(-1)!.id!
      expect((yield* onB(appendLogs(worker, runId, { sequence: 9, lines: lines(9, 12) }))).status).toBe(200)
      const onAFollower = yield* onA(openSse(`/api/v1/runs/${runId}/logs`, { cookie: env.user.cookie, accept: "text/event-stream", "last-event-id": lastId }))
      yield* onAFollower.until((text) => parseEvents(text).length === 4, "the lines after the last id, on A")
      const all = [...parseEvents(onBFollower.text()).slice(0, 8), ...parseEvents(onAFollower.text())]
      expect(all.map((e) => e.data.text)).toEqual(lines(1, 12).map((l) => l.text))
      expect(all.map((e) => e.data.seq)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1))
    }))
})
