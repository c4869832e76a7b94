import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"
import fc from "fast-check"
import * as Tuning from "../../src/Config/Tuning.js"
import { uuidv7 } from "../../src/Crypto/Ids.js"
import { comparePlaces, type LoadedWorker, placeEach } from "../../src/RunStore/Placement.js"
import { RunStore } from "../../src/RunStore/RunStore.js"
import * as SqlRunStore from "../../src/RunStore/SqlRunStore.js"
import { addTrigger, addWorker, databaseLayer, seedTenant } from "./support.js"

/**
 * The placement rule is declared once (`RunStore/Placement`) and applied two
 * ways: set-wise in SQL by run creation, one run at a time in JavaScript by
 * the assignment pass. These tests give both the same workers and loads and
 * check they choose the same worker for every run, in the same order: the
 * pass's plan alone (`placeEach` over the generated loads), and the whole
 * pass (`assignQueued`, its own reads included) over a copy of the case.
 */
const rules = { workerOfflineAfterSeconds: 30, activeWorkerSeconds: 5, maxAssignedPerWorker: 3 }

/** A worker as generated: how recently it was seen, whether it drains, and the runs it holds. */
interface WorkerCase {
  readonly seen: "recent" | "quiet" | "offline"
  readonly draining: boolean
  /** Assigned and not yet claimed (counts against `maxAssignedPerWorker`). */
  readonly waiting: number
  /** Claimed or running. */
  readonly busy: number
  /** Runs it was given before and that ended: no load, but newer ones place it later among equals. */
  readonly given: number
}

interface Case {
  readonly workers: ReadonlyArray<WorkerCase>
  readonly runs: number
  /** Index of the worker the trigger is pinned to, if any. */
  readonly pinned: number | undefined
}

const workerCase: fc.Arbitrary<WorkerCase> = fc.record({
  seen: fc.constantFrom("recent", "recent", "quiet", "offline"),
  draining: fc.integer({ min: 0, max: 9 }).map((n) => n < 2),
  waiting: fc.integer({ min: 0, max: 3 }),
  busy: fc.integer({ min: 0, max: 3 }),
  given: fc.integer({ min: 0, max: 2 })
})

const cases: fc.Arbitrary<Case> = fc.array(workerCase, { minLength: 1, maxLength: 10 }).chain((workers) =>
  fc.record({
    workers: fc.constant(workers),
    runs: fc.integer({ min: 1, max: 6 }),
    pinned: fc.option(fc.integer({ min: 0, max: workers.length - 1 }), { nil: undefined, freq: 4 })
  })
)

const layer = SqlRunStore.layer.pipe(Layer.provide(Tuning.layer(rules)), Layer.provideMerge(databaseLayer))

/** Seeds one case in an environment of its own; answers the trigger, the workers' ids and what the pass would read of them. */
const seedCase = (c: Case, now: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const tenant = yield* seedTenant
    const workers: Array<{ readonly id: string; readonly worker: WorkerCase }> = []
    for (const worker of c.workers) {
      const seenAgo = worker.seen === "recent" ? 1 : worker.seen === "quiet" ? 15 : 60
      const { workerId } = yield* addWorker(tenant, new Date(now - seenAgo * 1000))
      if (worker.draining) yield* sql`UPDATE workers SET draining = true WHERE id = ${workerId}`
      workers.push({ id: workerId, worker })
    }
    const loadTrigger = yield* addTrigger(tenant.environmentId)
    // Runs given earlier and ended: no load, but they say who was given a run last.
    for (const { id, worker } of workers) {
      for (let i = 0; i < worker.given; i++) {
        yield* sql`
          INSERT INTO runs (id, trigger_id, environment_id, status, timeout_seconds, heartbeat_timeout_seconds, max_retries,
            worker_id, assigned_at, ended_at)
          VALUES (${uuidv7()}, ${loadTrigger}, ${tenant.environmentId}, 'succeeded', 60, 5, 0, ${id},
            ${new Date(now - 5000).toISOString()}::timestamptz, ${new Date(now - 4000).toISOString()}::timestamptz)`
      }
    }
    for (const { id, worker } of workers) {
      const held = [...Array(worker.waiting).fill("assigned"), ...Array(worker.busy).fill("running")] as Array<string>
      for (const status of held) {
        yield* sql`
          INSERT INTO runs (id, trigger_id, environment_id, status, timeout_seconds, heartbeat_timeout_seconds, max_retries,
            worker_id, assigned_at, deadline_at)
          VALUES (${uuidv7()}, ${loadTrigger}, ${tenant.environmentId}, ${status}, 60, 5, 0, ${id},
            ${new Date(now).toISOString()}::timestamptz, ${new Date(now + 60_000).toISOString()}::timestamptz)`
      }
    }
    const triggerId = yield* addTrigger(tenant.environmentId, { workerId: c.pinned === undefined ? null : workers[c.pinned]!.id })
    // What the pass reads: workers that take new runs (online, not draining), with their loads.
    const lastRuns = new Map((yield* sql<{ worker_id: string; last_run: string }>`
      SELECT worker_id, max(id::text COLLATE "C") AS last_run FROM runs
      WHERE worker_id IN (SELECT id FROM workers WHERE environment_id = ${tenant.environmentId}) GROUP BY worker_id`)
      .map((r) => [r.worker_id, r.last_run]))
    const loaded: Array<LoadedWorker> = workers
      .filter(({ worker }) => worker.seen !== "offline" && !worker.draining)
      .map(({ id, worker }) => ({
        id,
        cost: worker.waiting + worker.busy,
        waiting: worker.waiting,
        recent: worker.seen === "recent",
        polling: false,
        lastRun: lastRuns.get(id) ?? ""
      }))
    return {
      environmentId: tenant.environmentId,
      triggerId,
      loaded,
      workerIds: workers.map((w) => w.id),
      pinned: c.pinned === undefined ? null : workers[c.pinned]!.id
    }
  }).pipe(Effect.orDie)

const requestsOf = (n: number) =>
  Array.from({ length: n }, () => ({
    input: undefined,
    idempotencyKey: undefined,
    actor: { _tag: "User" as const, userId: uuidv7(), sessionHash: "t" }
  }))

/**
 * Both forms on one case, as the index of the worker each run went to:
 * run creation's, `placeEach`'s over the same loads, and a whole assignment
 * pass's over a copy of the case whose runs were created queued.
 */
const bothForms = (c: Case) =>
  Effect.gen(function*() {
    const now = 1_800_000_000_000
    yield* TestClock.setTime(now)
    const store = yield* RunStore
    const seeded = yield* seedCase(c, now)
    const created = yield* store.createMany(seeded.triggerId, requestsOf(c.runs), {
      placement: { ...rules, claimTimeoutSeconds: 30, channel: "placement_test" }
    })
    const indexIn = (workerIds: ReadonlyArray<string>) => (id: string | undefined) =>
      id === undefined ? undefined : workerIds.indexOf(id)
    const bySql = created.map((run) => run?.assigned?.workerId).map(indexIn(seeded.workerIds))
    const runs = created.map((run) => ({ id: run!.run.id, environment_id: seeded.environmentId, pinned: seeded.pinned }))
    const plan = placeEach(runs, new Map([[seeded.environmentId, seeded.loaded]]), rules.maxAssignedPerWorker)
    const chosen = new Map(plan.runIds.map((id, i) => [id, plan.workerIds[i]]))
    const byJs = runs.map((run) => chosen.get(run.id)).map(indexIn(seeded.workerIds))
    // The copy: its runs created queued (no placement), then one pass, which takes them oldest first.
    const copy = yield* seedCase(c, now)
    const queued = yield* store.createMany(copy.triggerId, requestsOf(c.runs))
    const assigned = new Map((yield* store.assignQueued(copy.environmentId)).map((a) => [a.id, a.worker_id]))
    const byPass = queued.map((run) => assigned.get(run!.run.id)).map(indexIn(copy.workerIds))
    return { bySql, byJs, byPass }
  })

describe("the placement rule's two forms agree", () => {
  it.effect("run creation (SQL), placeEach and a whole assignment pass choose the same workers, in order", () =>
    Effect.gen(function*() {
      const samples = fc.sample(cases, { numRuns: 60, seed: 16 })
      let placed = 0
      for (const c of samples) {
        const { byJs, byPass, bySql } = yield* bothForms(c)
        expect(bySql, JSON.stringify(c)).toEqual(byJs)
        expect(byPass, JSON.stringify(c)).toEqual(bySql)
        placed += bySql.filter((w) => w !== undefined).length
      }
      // Not vacuous: most cases place runs.
      expect(placed).toBeGreaterThan(samples.length)
    }).pipe(Effect.provide(layer)))

  it("the order: in touch first, then the lowest cost, then a preferred worker, then the least recently given a run, then the id", () => {
    const place = (recent: boolean, cost: number, polling: boolean, id: string, lastRun = "") => ({ recent, cost, polling, lastRun, id })
    const places = [
      place(false, 0, true, "a"),
      place(true, 2, false, "a"),
      place(true, 1, false, "b"),
      place(true, 1, true, "c"),
      place(true, 1, false, "a", "0190"),
      place(true, 1, false, "d", "0180")
    ]
    expect([...places].sort(comparePlaces)).toEqual([
      place(true, 1, true, "c"),
      place(true, 1, false, "b"),
      place(true, 1, false, "d", "0180"),
      place(true, 1, false, "a", "0190"),
      place(true, 2, false, "a"),
      place(false, 0, true, "a")
    ])
  })
})
