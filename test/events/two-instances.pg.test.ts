import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { RunFeedConfig } from "../../src/Scheduler/RunFeed.js"
import { createTrigger, registerWorker, setupEnvironment } from "../support/Fixtures.js"
import { call } from "../support/TestApp.js"
import { appLayer, databaseLocation, openDatabase, type Db } from "../scheduler/instances.js"
import { openSse } from "./sse.js"

/**
 * An instance whose subscribers look for new rows only once a minute on
 * their own: within the test, an event reaches them only by a wake-up (this
 * instance's own `announce`, or another instance's NOTIFY).
 */
const startInstance = (db: Context.Context<Db>) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    yield* Effect.addFinalizer(() => Scope.close(scope, Exit.void))
    return yield* Layer.buildWithScope(
      appLayer(db).pipe(Layer.provide(Layer.succeed(RunFeedConfig, { pollIntervalMillis: 60_000 }))),
      scope
    )
  })

describe("live run events across instances (Postgres)", () => {
  it.scopedLive("a transition committed on instance A reaches an SSE subscriber on instance B at once (LISTEN/NOTIFY)", () =>
    Effect.gen(function*() {
      const location = yield* databaseLocation
      const dbA = yield* openDatabase(location)
      const dbB = yield* openDatabase(location)
      yield* Effect.addFinalizer(() => Effect.zipRight(dbA.close, dbB.close))
      const a = yield* startInstance(dbA.context)
      const b = yield* startInstance(dbB.context)
      const onA = <X, E, R>(effect: Effect.Effect<X, E, R>) => Effect.provide(effect, a)

      const env = yield* onA(setupEnvironment())
      const trigger = yield* onA(createTrigger(env))
      const worker = yield* onA(registerWorker(env))
      const sse = yield* Effect.provide(openSse(`/api/v1/environments/${env.environmentId}/events`, { cookie: env.user.cookie }), b)
      expect(sse.status).toBe(200)
      yield* sse.until((text) => text.startsWith(": connected"), "the first comment line")

      const started = Date.now()
      const created = yield* onA(call("POST", `/api/v1/triggers/${trigger.id}/run`, { cookie: env.user.cookie }))
      expect(created.status).toBe(201)
      const runId = created.body.id as string
      yield* sse.until(() => sse.runs().filter((e) => e.run.id === runId).length >= 2, "requested and assigned on B")
      // Well before B's own once-a-minute look: it was woken by A's NOTIFY.
      expect(Date.now() - started).toBeLessThan(10_000)

      const claim = yield* onA(call("POST", `/api/v1/workers/${worker.workerId}/runs/${runId}/claim`, { bearer: worker.token }))
      expect(claim.status).toBe(200)
      yield* sse.until(() => sse.runs().some((e) => e.run.id === runId && e.run.status === "claimed"), "claimed on B")
      expect(sse.runs()).toHaveLength(3)
    }))

  it.scopedLive("an event whose transaction commits after a later one's is still delivered, in order, none skipped", () =>
    Effect.gen(function*() {
      const location = yield* databaseLocation
      const dbA = yield* openDatabase(location)
      yield* Effect.addFinalizer(() => dbA.close)
      const a = yield* startInstance(dbA.context)
      const onA = <X, E, R>(effect: Effect.Effect<X, E, R>) => Effect.provide(effect, a)
      const env = yield* onA(setupEnvironment())
      const trigger = yield* onA(createTrigger(env))
      const sse = yield* onA(openSse(`/api/v1/environments/${env.environmentId}/events`, { cookie: env.user.cookie }))
      yield* sse.until((text) => text.startsWith(": connected"), "the first comment line")
      const first = yield* onA(call("POST", `/api/v1/triggers/${trigger.id}/run`, { cookie: env.user.cookie }))
      yield* sse.until(() => sse.runs().length >= 1, "the first run's event")

      // A transaction takes the next event id and stays open while another
      // transition (a larger id) commits: the subscriber must wait for it.
      const sql = Context.get(dbA.context, SqlClient.SqlClient)
      const held = yield* Effect.makeLatch(false)
      const committing = yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`
          INSERT INTO run_events (run_id, environment_id, status, at, worker_id, reason)
          VALUES (${first.body.id}, ${env.environmentId}, 'queued', now(), NULL, 'released')`
        yield* held.await
      })).pipe(Effect.orDie, Effect.fork)
      yield* Effect.sleep("300 millis")
      const second = yield* onA(call("POST", `/api/v1/triggers/${trigger.id}/run`, { cookie: env.user.cookie }))
      expect(second.status).toBe(201)
      yield* Effect.sleep("1500 millis")
      expect(sse.runs().map((e) => e.run.id)).toEqual([first.body.id])

      yield* held.open
      yield* Effect.asVoid(committing.await)
      // Woken by the next announced transition (or its once-a-minute look): a third run.
      yield* onA(call("POST", `/api/v1/triggers/${trigger.id}/run`, { cookie: env.user.cookie }))
      yield* sse.until(() => sse.runs().length >= 4, "the held event and the later ones")
      const ids = sse.runs().map((e) => e.run.id)
      expect(ids.slice(0, 3)).toEqual([first.body.id, first.body.id, second.body.id])
    }))
})
