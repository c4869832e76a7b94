import * as SqlClient from "@effect/sql/SqlClient"
import { expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { createTrigger, mintApiKey, registerWorker, setupEnvironment } from "../support/Fixtures.js"
import { call } from "../support/TestApp.js"
import { usingPostgres } from "../support/TestDatabase.js"
import { databaseLocation, openDatabase, startInstance } from "../scheduler/instances.js"

// The "done when", end to end over HTTP with two app instances on one
// database (each with its own pool on Postgres; embedded, they share the one
// PGlite session): a trigger {limit: 2, perKey: 1}, three workers taking up to
// 10 runs each, 6 runs of key A and 2 of key B requested together.
it.live("limit 2, perKey 1 on two instances: never more than 2 placed nor 2 of a key; A, B, A, B, A, A; every waiting run says why", () =>
  Effect.gen(function*() {
    const location = yield* databaseLocation
    const dbA = yield* openDatabase(location)
    const dbB = usingPostgres() ? yield* openDatabase(location) : dbA
    const a = yield* startInstance(dbA.context)
    const b = yield* startInstance(dbB.context)
    const instances = [Context.merge(dbA.context, a.context), Context.merge(dbB.context, b.context)]
    const on = (i: number) => <X, E, R>(effect: Effect.Effect<X, E, R>) => Effect.provide(effect, instances[i % 2]!)

    const { env, key, trigger, workers } = yield* on(0)(Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const trigger = yield* createTrigger(env, { concurrency: { limit: 2, perKey: 1 } })
      const key = yield* mintApiKey(env, "operator")
      const workers = [yield* registerWorker(env, "w0"), yield* registerWorker(env, "w1"), yield* registerWorker(env, "w2")]
      return { env, key, trigger, workers }
    }))

    // Requested in this order, half through each instance, all before any worker polls.
    const keys = ["A", "A", "A", "A", "A", "A", "B", "B"]
    const keyOf = new Map<string, string>()
    for (const [i, k] of keys.entries()) {
      const res = yield* on(i)(call("POST", `/api/v1/triggers/${trigger.id}/run`, { bearer: key, body: { concurrencyKey: k } }))
      expect(res.status).toBe(201)
      expect(res.body.concurrencyKey).toBe(k)
      keyOf.set(res.body.id, k)
    }

    /** Places held now (assigned, claimed, running): in all and per key, as the database has them. */
    const held = on(1)(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return yield* sql<{ concurrency_key: string; n: number }>`
        SELECT concurrency_key, count(*)::int AS n FROM runs
        WHERE trigger_id = ${trigger.id} AND worker_id IS NOT NULL AND ended_at IS NULL GROUP BY concurrency_key`
    }).pipe(Effect.orDie))
    const checkLimits = Effect.gen(function*() {
      const rows = yield* held
      expect(rows.reduce((n, r) => n + r.n, 0)).toBeLessThanOrEqual(2)
      for (const row of rows) expect(row.n).toBeLessThanOrEqual(1)
    })

    /** The wait reason of every queued run, through GET /runs/{id} on either instance. */
    const waitReasons = (i: number) =>
      Effect.gen(function*() {
        const listed = yield* on(i)(call("GET", `/api/v1/triggers/${trigger.id}/runs?status=queued`, { cookie: env.user.cookie }))
        expect(listed.status).toBe(200)
        const reasons: Array<[string, string | null, string | null]> = []
        for (const run of listed.body.items) {
          const one = yield* on(i + 1)(call("GET", `/api/v1/runs/${run.id}`, { cookie: env.user.cookie }))
          expect(one.body.waitReason).toBe(run.waitReason)
          reasons.push([keyOf.get(run.id)!, one.body.waitReason, one.body.concurrencyKey])
        }
        return reasons
      })

    const started: Array<string> = []
    const running: Array<{ runId: string; worker: number }> = []
    const pollAll = (round: number) =>
      Effect.forEach(workers, (worker, w) =>
        Effect.gen(function*() {
          const base = `/api/v1/workers/${worker.workerId}`
          const polled = yield* on(round + w)(call("GET", `${base}/poll?wait=0&claim=true&max=10`, { bearer: worker.token }))
          expect(polled.status).toBe(200)
          for (const run of polled.body.runs) {
            const s = yield* on(round + w + 1)(call("POST", `${base}/runs/${run.id}/start`, { bearer: worker.token }))
            expect(s.status).toBe(200)
            started.push(keyOf.get(run.id)!)
            running.push({ runId: run.id, worker: w })
          }
          yield* checkLimits
        }), { discard: true })

    yield* pollAll(0)
    expect(started).toEqual(["A", "B"])
    // Both places of the trigger are taken: every waiting run is held by the trigger's limit.
    const first = yield* waitReasons(0)
    expect(first).toHaveLength(6)
    for (const [k, reason, runKey] of first) {
      expect(reason).toBe("trigger_limit")
      expect(runKey).toBe(k)
    }

    let sawKeyLimit = 0
    for (let round = 1; running.length > 0 && round < 20; round++) {
      // The oldest run ends; the next poll places what the limits now allow.
      const done = running.shift()!
      const worker = workers[done.worker]!
      const c = yield* on(round)(call("POST", `/api/v1/workers/${worker.workerId}/runs/${done.runId}/complete`, {
        bearer: worker.token,
        body: { status: "succeeded" }
      }))
      expect(c.status).toBe(200)
      yield* checkLimits
      yield* pollAll(round)
      // Two placed: the trigger's limit holds every waiting run. One placed (only
      // key A is left): the trigger has room, the key's place is taken.
      const reasons = yield* waitReasons(round)
      for (const [k, reason] of reasons) {
        expect([k, reason]).toEqual([k, running.length >= 2 ? "trigger_limit" : "key_limit"])
        if (reason === "key_limit") sawKeyLimit++
      }
    }
    expect(started).toEqual(["A", "B", "A", "B", "A", "A", "A", "A"])
    expect(sawKeyLimit).toBeGreaterThan(0)

    // Every worker stopped (not seen for an hour): a new run waits for a worker.
    yield* on(0)(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql`UPDATE workers SET last_seen_at = now() - interval '1 hour' WHERE environment_id = ${env.environmentId}`
    ).pipe(Effect.orDie))
    const late = yield* on(1)(call("POST", `/api/v1/triggers/${trigger.id}/run`, { bearer: key, body: { concurrencyKey: "C" } }))
    expect(late.status).toBe(201)
    for (const i of [0, 1]) {
      const read = yield* on(i)(call("GET", `/api/v1/runs/${late.body.id}`, { cookie: env.user.cookie }))
      expect(read.body).toMatchObject({ status: "queued", waitReason: "no_worker_online", concurrencyKey: "C", waitPool: null })
    }

    yield* a.stop
    yield* b.stop
    yield* dbA.close
    if (dbB !== dbA) yield* dbB.close
  }).pipe(Effect.scoped), 180_000)
