import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Runtime from "effect/Runtime"
import * as TestClock from "effect/TestClock"
import fc from "fast-check"
import * as Tuning from "../../src/Config/Tuning.js"
import { uuidv7 } from "../../src/Crypto/Ids.js"
import { nowIso } from "../../src/Db/Time.js"
import { waitReasonJoin } from "../../src/RunStore/Placement.js"
import { RunStore } from "../../src/RunStore/RunStore.js"
import * as SqlRunStore from "../../src/RunStore/SqlRunStore.js"
import { addTrigger, addWorker, databaseLayer, seedTenant } from "../scheduler/support.js"

/**
 * The limits hold whatever happens: random sequences of requests (four keys,
 * two triggers sharing a pool), placements (three assignment passes at once,
 * on as many connections on Postgres: the race two instances run), claims,
 * completions, cancels, time-outs and revocations, checked after every step:
 * no trigger, key or pool ever has more runs holding a place than its limit
 * (no moment over the limit), and after every placement no waiting run is
 * left that every limit and a worker had room for (its wait reason says what
 * holds it; null would mean "placeable").
 */
const rules = { workerOfflineAfterSeconds: 30, activeWorkerSeconds: 5, maxAssignedPerWorker: 3 }
const layer = SqlRunStore.layer.pipe(Layer.provide(Tuning.layer(rules)), Layer.provideMerge(databaseLayer))

const limits = { limit: 3, perKey: 1, pool: 4 }
const keys = ["a", "b", "c", ""]

type Op =
  | { readonly _tag: "request"; readonly trigger: 0 | 1; readonly key: number; readonly n: number }
  | { readonly _tag: "assign" }
  | { readonly _tag: "claim"; readonly worker: number }
  | { readonly _tag: "complete"; readonly pick: number; readonly failed: boolean }
  | { readonly _tag: "cancel"; readonly pick: number }
  | { readonly _tag: "timeOut"; readonly pick: number }
  | { readonly _tag: "revoke"; readonly worker: number }

const op: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ _tag: fc.constant("request" as const), trigger: fc.constantFrom(0 as const, 1 as const), key: fc.integer({ min: 0, max: 3 }), n: fc.integer({ min: 1, max: 3 }) }), weight: 4 },
  { arbitrary: fc.constant({ _tag: "assign" as const }), weight: 4 },
  { arbitrary: fc.record({ _tag: fc.constant("claim" as const), worker: fc.integer({ min: 0, max: 2 }) }), weight: 3 },
  { arbitrary: fc.record({ _tag: fc.constant("complete" as const), pick: fc.nat(), failed: fc.boolean() }), weight: 3 },
  { arbitrary: fc.record({ _tag: fc.constant("cancel" as const), pick: fc.nat() }), weight: 1 },
  { arbitrary: fc.record({ _tag: fc.constant("timeOut" as const), pick: fc.nat() }), weight: 1 },
  { arbitrary: fc.record({ _tag: fc.constant("revoke" as const), worker: fc.integer({ min: 0, max: 2 }) }), weight: 1 }
)

const lease = { owner: null, leaseMillis: 0 }

/** Seeds a case: an environment, three workers, a pool of 4 and two triggers in it (one with limit 3, perKey 1). */
const seedCase = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const tenant = yield* seedTenant
  const workers: Array<string> = []
  for (let i = 0; i < 3; i++) workers.push((yield* addWorker(tenant, new Date())).workerId)
  const poolId = uuidv7()
  yield* sql`INSERT INTO concurrency_pools (id, environment_id, name, "limit") VALUES (${poolId}, ${tenant.environmentId}, 'p', ${limits.pool})`
  const limited = yield* addTrigger(tenant.environmentId, { maxRetries: 1 })
  yield* sql`UPDATE triggers SET concurrency_limit = ${limits.limit}, concurrency_per_key = ${limits.perKey},
    concurrency_pool_id = ${poolId} WHERE id = ${limited}`
  const pooled = yield* addTrigger(tenant.environmentId)
  yield* sql`UPDATE triggers SET concurrency_pool_id = ${poolId} WHERE id = ${pooled}`
  return { ...tenant, workers, triggers: [limited, pooled] as const }
}).pipe(Effect.orDie)

type Case = Effect.Effect.Success<typeof seedCase>

/** Runs of the case holding a place now, with their trigger and key. */
const heldOf = (c: Case) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: string; trigger_id: string; concurrency_key: string; status: string; worker_id: string }>`
      SELECT id, trigger_id, concurrency_key, status, worker_id FROM runs
      WHERE environment_id = ${c.environmentId} AND worker_id IS NOT NULL AND ended_at IS NULL ORDER BY id`).pipe(Effect.orDie)

const checkLimits = (c: Case, step: string) =>
  Effect.gen(function*() {
    const held = yield* heldOf(c)
    const ofLimited = held.filter((r) => r.trigger_id === c.triggers[0])
    expect(held.length, step).toBeLessThanOrEqual(limits.pool)
    expect(ofLimited.length, step).toBeLessThanOrEqual(limits.limit)
    for (const key of keys) expect(ofLimited.filter((r) => r.concurrency_key === key).length, step).toBeLessThanOrEqual(limits.perKey)
    return held.length
  })

/** After a placement: every waiting run has a reason (none would mean it could have been placed). */
const checkLiveness = (c: Case, step: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const now = yield* nowIso
    const waiting = yield* sql<{ id: string; wait_reason: string | null }>`
      SELECT r.id, wr.wait_reason FROM runs r ${waitReasonJoin(sql, now, rules)}
      WHERE r.environment_id = ${c.environmentId} AND r.worker_id IS NULL AND r.ended_at IS NULL`.pipe(Effect.orDie)
    for (const run of waiting) expect(run.wait_reason, `${step}: ${run.id}`).not.toBeNull()
  })

const runCase = (ops: ReadonlyArray<Op>) =>
  Effect.gen(function*() {
    const store = yield* RunStore
    const sql = yield* SqlClient.SqlClient
    const c = yield* seedCase
    const actor = { _tag: "User" as const, userId: c.userId, sessionHash: "t" }
    let peak = 0
    for (const [i, o] of ops.entries()) {
      const step = `step ${i} ${JSON.stringify(o)}`
      const held = yield* heldOf(c)
      const pick = <A>(list: ReadonlyArray<A>, n: number) => list.length === 0 ? undefined : list[n % list.length]
      switch (o._tag) {
        case "request":
          yield* store.createMany(c.triggers[o.trigger], Array.from({ length: o.n }, () => ({
            input: undefined,
            idempotencyKey: undefined,
            actor,
            concurrencyKey: keys[o.key] === "" ? undefined : keys[o.key]
          })))
          break
        case "assign":
          // Three passes at once: on Postgres each on its own connection, racing as two instances do.
          yield* Effect.all([store.assignQueued(c.environmentId), store.assignQueued(c.environmentId), store.assignQueued()], {
            concurrency: "unbounded",
            discard: true
          })
          break
        case "claim":
          yield* store.claimMany(c.workers[o.worker]!, 10, true)
          break
        case "complete": {
          const run = pick(held.filter((r) => r.status === "running" || r.status === "claimed"), o.pick)
          if (run === undefined) break
          yield* store.completeMany(run.worker_id, [{
            runId: run.id,
            completion: { status: o.failed ? "failed" : "succeeded", shortMessage: null, errorMessage: null, costUsd: null, faultClass: o.failed ? "client" : "none", output: null }
          }], lease)
          break
        }
        case "cancel": {
          const open = yield* sql<{ id: string }>`SELECT id FROM runs WHERE environment_id = ${c.environmentId} AND ended_at IS NULL ORDER BY id`.pipe(Effect.orDie)
          const run = pick(open, o.pick)
          if (run !== undefined) yield* store.cancel(run.id, c.environmentId, { type: "user", id: c.userId }, lease)
          break
        }
        case "timeOut": {
          const run = pick(held.filter((r) => r.status === "running" || r.status === "claimed"), o.pick)
          if (run !== undefined) yield* store.timeOut(run.id, undefined, lease)
          break
        }
        case "revoke": {
          const worker = c.workers[o.worker]!
          yield* store.releaseWorker(worker)
          yield* store.timeOutRevoked(worker, yield* store.heldBy(worker), lease)
          break
        }
      }
      peak = Math.max(peak, yield* checkLimits(c, step))
      if (o._tag === "assign") yield* checkLiveness(c, step)
    }
    return peak
  })

describe("flow control limits (property)", () => {
  it.effect("no moment over a trigger's, a key's or a pool's limit, and nothing placeable left waiting", () =>
    Effect.gen(function*() {
      // Real time on the TestClock, so workers seen "now" are online and deadlines look real.
      yield* TestClock.setTime(Date.now())
      const runtime = yield* Effect.runtime<RunStore | SqlClient.SqlClient>()
      let peaks = 0
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(fc.array(op, { minLength: 10, maxLength: 40 }), async (ops) => {
            const peak = await Runtime.runPromise(runtime)(runCase(ops))
            peaks = Math.max(peaks, peak)
          }),
          { numRuns: Number(process.env.PTS_PROPERTY_RUNS ?? 25), seed: 33, endOnFailure: process.env.PTS_PROPERTY_RUNS !== undefined }
        )
      )
      // Not vacuous: some case filled the pool.
      expect(peaks).toBe(limits.pool)
    }).pipe(Effect.provide(layer)), 300_000)
})
