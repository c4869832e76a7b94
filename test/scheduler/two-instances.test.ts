import * as SqlClient from "@effect/sql/SqlClient"
import { expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { createTrigger, mintApiKey, registerWorker, setupEnvironment } from "../support/Fixtures.js"
import { call } from "../support/TestApp.js"
import { usingPostgres } from "../support/TestDatabase.js"
import { databaseLocation, openDatabase, startInstance } from "./instances.js"

const RUNS = 200
const WORKERS = 4

// Two app instances on one database, each with its own HTTP server, supervisor
// and sweep. On Postgres each has its own connection pool (the real
// two-process setup); embedded, both share the one PGlite session.
it.live("two instances, 200 runs, four workers polling both: every run ends exactly once, none claimed twice", () =>
  Effect.gen(function*() {
    const location = yield* databaseLocation
    const dbA = yield* openDatabase(location)
    const dbB = usingPostgres() ? yield* openDatabase(location) : dbA
    const a = yield* startInstance(dbA.context)
    const b = yield* startInstance(dbB.context)
    const instances = [Context.merge(dbA.context, a.context), Context.merge(dbB.context, b.context)]
    const on = (i: number) => <X, E, R>(effect: Effect.Effect<X, E, R>) => Effect.provide(effect, instances[i % 2]!)

    const { env, trigger, key, workers } = yield* on(0)(Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const trigger = yield* createTrigger(env)
      const key = yield* mintApiKey(env, "operator")
      const workers: Array<{ workerId: string; token: string }> = []
      for (let i = 0; i < WORKERS; i++) workers.push(yield* registerWorker(env, `w${i}`))
      return { env, trigger, key, workers }
    }))

    const claims = new Map<string, number>()
    const failures: Array<string> = []
    let completed = 0
    const started = Date.now()

    const work = (w: number) =>
      Effect.gen(function*() {
        const worker = workers[w]!
        const base = `/api/v1/workers/${worker.workerId}`
        for (let round = 0; completed < RUNS && Date.now() - started < 120_000; round++) {
          // Half the workers claim in the poll, the other half claim each run explicitly.
          const claimInPoll = w % 2 === 0
          const polled = yield* on(w + round)(call("GET", `${base}/poll?wait=1${claimInPoll ? "&claim=true&max=10" : ""}`, {
            bearer: worker.token
          }))
          if (polled.status !== 200) failures.push(`poll ${polled.status}`)
          for (const run of polled.body.runs ?? []) {
            if (!claimInPoll) {
              const claimed = yield* on(w + round + 1)(call("POST", `${base}/runs/${run.id}/claim`, { bearer: worker.token }))
              if (claimed.status !== 200) {
                failures.push(`claim ${claimed.status} ${JSON.stringify(claimed.body)}`)
                continue
              }
            }
            claims.set(run.id, (claims.get(run.id) ?? 0) + 1)
            const s = yield* on(w + round + 1)(call("POST", `${base}/runs/${run.id}/start`, { bearer: worker.token }))
            const c = yield* on(w + round)(call("POST", `${base}/runs/${run.id}/complete`, {
              bearer: worker.token,
              body: { status: "succeeded", costUsd: "0.01" }
            }))
            if (s.status !== 200 || c.status !== 200) failures.push(`start ${s.status} complete ${c.status}`)
            else completed++
          }
        }
      })

    const request = (i: number) =>
      on(i)(call("POST", `/api/v1/triggers/${trigger.id}/run`, { bearer: key })).pipe(
        Effect.tap((res) => Effect.sync(() => res.status === 201 || failures.push(`run ${res.status}`)))
      )
    yield* Effect.all([
      Effect.forEach(Array.from({ length: RUNS }, (_, i) => i), request, { concurrency: 8, discard: true }),
      Effect.forEach(workers.map((_, w) => w), work, { concurrency: "unbounded", discard: true })
    ], { concurrency: "unbounded" })

    expect(failures).toEqual([])
    expect(completed).toBe(RUNS)
    expect(claims.size).toBe(RUNS)
    expect([...claims.values()].every((n) => n === 1)).toBe(true)

    const rows = yield* on(1)(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return yield* sql<{ status: string; n: number; spend: string }>`
        SELECT status, count(*)::int AS n, sum(cost_usd)::text AS spend FROM runs
        WHERE environment_id = ${env.environmentId} GROUP BY status`
    }).pipe(Effect.orDie))
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ status: "succeeded", n: RUNS })
    expect(Number(rows[0]!.spend)).toBe(2)

    yield* a.stop
    yield* b.stop
    yield* dbA.close
    if (dbB !== dbA) yield* dbB.close
  }).pipe(Effect.scoped), 180_000)
