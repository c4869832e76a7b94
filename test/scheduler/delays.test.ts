import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import * as TestClock from "effect/TestClock"
import type { CreateRequest } from "../../src/RunStore/RunStore.js"
import type { TuningShape } from "../../src/Config/Tuning.js"
import { Supervisor } from "../../src/Scheduler/Supervision.js"
import { WorkerProtocol } from "../../src/WorkerProtocol/WorkerProtocol.js"
import { addTrigger, databaseLayer, eventually, runState, schedulerOnly, seed, settle } from "./support.js"

/** Large enough that only the due loop acts on the clock, never the sweep. */
const noSweep = { sweepIntervalMillis: 3_600_000 }

const actor = (userId: string): CreateRequest["actor"] => ({ _tag: "User", userId, sessionHash: "test" })

/** A run requested through the real creation path, with flow control II's options. */
const request = (triggerId: string, userId: string, options: Partial<CreateRequest> = {}) =>
  Effect.gen(function*() {
    const supervisor = yield* Supervisor
    const [created] = yield* supervisor.createRuns(triggerId, [
      { input: undefined, idempotencyKey: undefined, actor: actor(userId), ...options }
    ])
    if (created === undefined || !("run" in created)) return yield* Effect.dieMessage("run not created")
    return created.run.id
  })

/** Marks the worker seen at `at` (ms), so it is online then. */
const seen = (workerId: string, at: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`UPDATE workers SET last_seen_at = ${new Date(at).toISOString()}::timestamptz WHERE id = ${workerId}`).pipe(Effect.orDie)

const sqlRows = <A extends object>(f: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<A>, unknown>) =>
  Effect.flatMap(SqlClient.SqlClient, f).pipe(Effect.orDie)

/** One scheduler instance in its own scope (stopping it is a process stopping). */
const startInstance = (options: Partial<TuningShape>) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const context = yield* Layer.buildWithScope(schedulerOnly(options), scope)
    return { context, stop: Scope.close(scope, Exit.void) }
  })

/** The TestClock at real now, so timestamps look real; then `body` on the shared database. */
const atNow = <A, E, R>(body: (t0: number) => Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const t0 = Date.now()
    yield* TestClock.setTime(t0)
    return yield* body(t0)
  }).pipe(Effect.provide(databaseLayer))

describe("delayed runs (TestClock)", () => {
  it.scoped("delaySeconds 600: queued and not placed at 599 s, placed at 600 s", () =>
    atNow((t0) =>
      Effect.gen(function*() {
        const env = yield* seed(new Date(t0))
        const trigger = yield* addTrigger(env.environmentId)
        const runId = yield* request(trigger, env.userId, { availableAt: t0 + 600_000 })
        const waiting = yield* runState(runId)
        expect(waiting).toMatchObject({ status: "queued", worker_id: null })
        yield* settle
        yield* seen(env.workerId, t0 + 599_000)
        yield* TestClock.adjust("599 seconds")
        yield* settle
        expect((yield* runState(runId)).status).toBe("queued")
        yield* TestClock.adjust("1 second")
        const placed = yield* eventually(runState(runId), (r) => r.status === "assigned")
        expect(placed.worker_id).toBe(env.workerId)
        expect(placed.assigned_at!.getTime()).toBe(t0 + 600_000)
      }).pipe(Effect.provide(schedulerOnly(noSweep)))))

  it.scoped("a run without a delay is placed at once, beside a delayed one that waits", () =>
    atNow((t0) =>
      Effect.gen(function*() {
        const env = yield* seed(new Date(t0))
        const trigger = yield* addTrigger(env.environmentId)
        const later = yield* request(trigger, env.userId, { availableAt: t0 + 60_000 })
        const now = yield* request(trigger, env.userId)
        expect((yield* eventually(runState(now), (r) => r.status === "assigned")).worker_id).toBe(env.workerId)
        expect((yield* runState(later)).status).toBe("queued")
      }).pipe(Effect.provide(schedulerOnly(noSweep)))))

  it.scoped("across a restart: the next instance places the delayed run at its time", () =>
    atNow((t0) =>
      Effect.gen(function*() {
        const first = yield* startInstance(noSweep)
        const { runId, workerId } = yield* Effect.gen(function*() {
          const env = yield* seed(new Date(t0))
          const trigger = yield* addTrigger(env.environmentId)
          return { runId: yield* request(trigger, env.userId, { availableAt: t0 + 600_000 }), workerId: env.workerId }
        }).pipe(Effect.provide(first.context))
        yield* first.stop
        const second = yield* startInstance(noSweep)
        yield* settle
        yield* seen(workerId, t0 + 599_000)
        yield* TestClock.adjust("599 seconds")
        yield* settle
        expect((yield* runState(runId)).status).toBe("queued")
        yield* TestClock.adjust("1 second")
        const placed = yield* eventually(runState(runId), (r) => r.status === "assigned")
        expect(placed.assigned_at!.getTime()).toBe(t0 + 600_000)
        yield* second.stop
      })))

  it.scoped("on a second instance: the instance that did not create the run places it (its sweep finds the run and rings its due loop)", () =>
    atNow((t0) =>
      Effect.gen(function*() {
        // B runs before the run exists, so only its periodic sweep can find it.
        const b = yield* startInstance({ sweepIntervalMillis: 60_000 })
        const a = yield* startInstance(noSweep)
        const { runId, workerId } = yield* Effect.gen(function*() {
          const env = yield* seed(new Date(t0))
          const trigger = yield* addTrigger(env.environmentId)
          return { runId: yield* request(trigger, env.userId, { availableAt: t0 + 600_000 }), workerId: env.workerId }
        }).pipe(Effect.provide(a.context))
        yield* a.stop
        yield* settle
        yield* seen(workerId, t0 + 599_000)
        yield* TestClock.adjust("599 seconds")
        yield* settle
        expect((yield* runState(runId)).status).toBe("queued")
        yield* TestClock.adjust("1 second")
        const placed = yield* eventually(runState(runId), (r) => r.status === "assigned")
        expect(placed.assigned_at!.getTime()).toBe(t0 + 600_000)
        yield* b.stop
      })))
})

describe("the due loop's wake-ups (TestClock)", () => {
  it.scoped("a run created earlier than the loop's next wake-up is placed on time (this instance's alarm)", () =>
    atNow((t0) =>
      Effect.gen(function*() {
        const env = yield* seed(new Date(t0))
        const trigger = yield* addTrigger(env.environmentId)
        // The loop now sleeps toward this run (or its own longest sleep), far beyond the next one's moment.
        const late = yield* request(trigger, env.userId, { availableAt: t0 + 600_000 })
        yield* settle
        const early = yield* request(trigger, env.userId, { availableAt: t0 + 5_000 })
        yield* settle
        yield* TestClock.adjust("4999 millis")
        yield* settle
        expect((yield* runState(early)).status).toBe("queued")
        yield* TestClock.adjust("1 milli")
        const placed = yield* eventually(runState(early), (r) => r.status === "assigned")
        expect(placed.assigned_at!.getTime()).toBe(t0 + 5_000)
        expect((yield* runState(late)).status).toBe("queued")
      }).pipe(Effect.provide(schedulerOnly(noSweep)))))

  it.scoped("a run another instance created, due before this instance's loop would look, is placed on time (the sweep's probe rings the loop)", () =>
    atNow((t0) =>
      Effect.gen(function*() {
        // B sweeps every second (the default); its due loop, with nothing stored, sleeps its longest.
        const b = yield* startInstance({ sweepIntervalMillis: 1_000 })
        yield* settle
        const a = yield* startInstance(noSweep)
        const { runId } = yield* Effect.gen(function*() {
          const env = yield* seed(new Date(t0))
          const trigger = yield* addTrigger(env.environmentId)
          return { runId: yield* request(trigger, env.userId, { availableAt: t0 + 5_000 }) }
        }).pipe(Effect.provide(a.context))
        // A crashes (as far as this run is concerned): only B can place it.
        yield* a.stop
        yield* settle
        for (let second = 1; second < 5; second++) {
          yield* TestClock.adjust("1 second")
          yield* settle
        }
        expect((yield* runState(runId)).status).toBe("queued")
        yield* TestClock.adjust("1 second")
        const placed = yield* eventually(runState(runId), (r) => r.status === "assigned")
        expect(placed.assigned_at!.getTime()).toBe(t0 + 5_000)
        yield* b.stop
      })))
})

describe("time-to-live (TestClock)", () => {
  it.scoped("a TTL run with no worker ends expired at its deadline exactly once across two instances, with one webhook", () =>
    atNow((t0) =>
      Effect.gen(function*() {
        const a = yield* startInstance(noSweep)
        // Seen long ago: offline, so nothing is placed.
        const runId = yield* Effect.gen(function*() {
          const env = yield* seed(new Date(t0 - 3_600_000))
          const triggerId = yield* addTrigger(env.environmentId, { webhookUrl: "https://example.com/hook", maxRetries: 3 })
          return yield* request(triggerId, env.userId, { ttlSeconds: 30 })
        }).pipe(Effect.provide(a.context))
        // A second instance: at start-up it reads the stored deadline, so both wake for it and race.
        const b = yield* startInstance(noSweep)
        yield* settle
        yield* TestClock.adjust("29 seconds")
        yield* settle
        expect((yield* runState(runId)).status).toBe("queued")
        yield* TestClock.adjust("1 second")
        const ended = yield* eventually(runState(runId), (r) => r.status === "expired")
        expect(ended.fault_class).toBe("none")
        yield* settle
        const [row] = yield* sqlRows((sql) =>
          sql<{ ended_at: Date; outbox: number; expired_events: number; retries: number }>`
            SELECT r.ended_at,
              (SELECT count(*)::int FROM webhook_outbox o WHERE o.run_id = r.id) AS outbox,
              (SELECT count(*)::int FROM run_events e WHERE e.run_id = r.id AND e.reason = 'expired') AS expired_events,
              (SELECT count(*)::int FROM runs x WHERE x.retry_of_run_id = r.id) AS retries
            FROM runs r WHERE r.id = ${runId}`)
        expect(row).toEqual({ ended_at: new Date(t0 + 30_000), outbox: 1, expired_events: 1, retries: 0 })
        yield* a.stop
        yield* b.stop
      })))

  it.scoped("a run claimed before its TTL never expires; a delayed run's TTL counts from availableAt", () =>
    atNow((t0) =>
      Effect.gen(function*() {
        const env = yield* seed(new Date(t0))
        const trigger = yield* addTrigger(env.environmentId, { heartbeatTimeoutSeconds: 3600 })
        const claimed = yield* request(trigger, env.userId, { ttlSeconds: 10 })
        const delayed = yield* request(trigger, env.userId, { ttlSeconds: 10, availableAt: t0 + 60_000 })
        const protocol = yield* WorkerProtocol
        const got = yield* protocol.poll(env.workerId, env.environmentId, { wait: 0, claim: true, max: 1 })
        expect(got.map((r) => r.id)).toEqual([claimed])
        const [expiry] = yield* sqlRows((sql) => sql<{ expires_at: Date }>`SELECT expires_at FROM runs WHERE id = ${delayed}`)
        expect(expiry!.expires_at.getTime()).toBe(t0 + 70_000)
        // Offline from now on: the delayed run, once ready, finds nobody and expires 10 s later.
        yield* seen(env.workerId, t0 - 3_600_000)
        yield* TestClock.adjust("65 seconds")
        yield* settle
        expect((yield* runState(delayed)).status).toBe("queued")
        yield* TestClock.adjust("5 seconds")
        yield* eventually(runState(delayed), (r) => r.status === "expired")
        yield* settle
        expect((yield* runState(claimed)).status).toBe("claimed")
      }).pipe(Effect.provide(schedulerOnly(noSweep)))))
})

describe("priority (TestClock)", () => {
  it.scoped("one free place, 100 queued runs: a run requested with priority 3600 is placed next", () =>
    atNow((t0) =>
      Effect.gen(function*() {
        // Offline while the queue fills.
        const env = yield* seed(new Date(t0 - 3_600_000))
        const trigger = yield* addTrigger(env.environmentId)
        for (let i = 0; i < 100; i++) yield* request(trigger, env.userId)
        const urgent = yield* request(trigger, env.userId, { priority: 3600 })
        yield* seen(env.workerId, t0)
        yield* (yield* Supervisor).assignAndWatch(env.environmentId)
        const [placed] = yield* sqlRows((sql) => sql<{ id: string }>`SELECT id FROM runs WHERE status = 'assigned'`)
        expect(placed?.id).toBe(urgent)
      }).pipe(Effect.provide(schedulerOnly({ ...noSweep, maxAssignedPerWorker: 1 })))))

  // The 2 h pass with no scheduler running (one instance requests the old run
  // and stops, the next starts 2 h later): moving the TestClock under a running
  // one would replay its once-a-second loops, 7,200 times each (17-28 s).
  it.scoped("no starvation: a priority-0 run queued 2 h before a priority-3600 run goes first", () =>
    atNow((t0) =>
      Effect.gen(function*() {
        const options = { ...noSweep, maxAssignedPerWorker: 1 }
        const first = yield* startInstance(options)
        const { env, trigger, old } = yield* Effect.gen(function*() {
          const env = yield* seed(new Date(t0 - 3_600_000))
          const trigger = yield* addTrigger(env.environmentId)
          return { env, trigger, old: yield* request(trigger, env.userId) }
        }).pipe(Effect.provide(first.context))
        yield* first.stop
        yield* TestClock.adjust("2 hours")
        const second = yield* startInstance(options)
        yield* Effect.gen(function*() {
          const urgent = yield* request(trigger, env.userId, { priority: 3600 })
          const t1 = t0 + 7_200_000
          yield* seen(env.workerId, t1)
          const supervisor = yield* Supervisor
          yield* supervisor.assignAndWatch(env.environmentId)
          expect((yield* runState(old)).status).toBe("assigned")
          expect((yield* runState(urgent)).status).toBe("queued")
        }).pipe(Effect.provide(second.context))
        yield* second.stop
      })))
})

describe("retry backoff (TestClock)", () => {
  it.scoped("{initial 2, factor 2, max 30, jitter 0.1}: retries available at +2, +4, +8 s ±10 %; retryable: false makes none", () =>
    atNow((t0) =>
      Effect.gen(function*() {
        const env = yield* seed(new Date(t0))
        const trigger = yield* addTrigger(env.environmentId, { maxRetries: 3, heartbeatTimeoutSeconds: 3600 })
        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE triggers SET retry_policy = ${
          JSON.stringify({ initialDelaySeconds: 2, factor: 2, maxDelaySeconds: 30, jitter: 0.1 })
        }::jsonb WHERE id = ${trigger}`.pipe(Effect.orDie)
        const protocol = yield* WorkerProtocol
        let runId = yield* request(trigger, env.userId)
        for (const [n, base] of [[1, 2], [2, 4], [3, 8]] as const) {
          const [run] = yield* protocol.poll(env.workerId, env.environmentId, { wait: 0, claim: true, max: 1 })
          expect(run?.id).toBe(runId)
          const failedAt = yield* TestClockNow
          yield* protocol.complete(env.workerId, runId, { status: "failed", stderr: `attempt ${n}` })
          const [retry] = yield* sqlRows((sql) =>
            sql<{ id: string; attempt: number; available_at: Date; delayed: boolean; status: string }>`
              SELECT id, attempt, available_at, delayed, status FROM runs WHERE retry_of_run_id = ${runId}`)
          expect(retry).toMatchObject({ attempt: n + 1, delayed: true, status: "queued" })
          const delay = retry!.available_at.getTime() - failedAt
          expect(delay).toBeGreaterThanOrEqual(base * 900)
          expect(delay).toBeLessThanOrEqual(base * 1100)
          // Waiting out its backoff: not placed a moment before, placed at its time.
          yield* seen(env.workerId, failedAt + delay)
          yield* settle
          yield* TestClock.adjust(Math.max(0, delay - 100))
          yield* settle
          expect((yield* runState(retry!.id)).status).toBe("queued")
          yield* TestClock.adjust(100)
          yield* eventually(runState(retry!.id), (r) => r.status === "assigned")
          runId = retry!.id
        }
        // A fresh lineage whose first run fails with retryable: false: no retry, though maxRetries allows three.
        const [last] = yield* protocol.poll(env.workerId, env.environmentId, { wait: 0, claim: true, max: 1 })
        expect(last?.id).toBe(runId)
        yield* protocol.complete(env.workerId, runId, { status: "succeeded" })
        const fresh = yield* request(trigger, env.userId)
        const [got] = yield* protocol.poll(env.workerId, env.environmentId, { wait: 0, claim: true, max: 1 })
        expect(got?.id).toBe(fresh)
        yield* protocol.complete(env.workerId, fresh, { status: "failed", stderr: "bad config", retryable: false })
        const [none] = yield* sqlRows((sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM runs WHERE retry_of_run_id = ${fresh}`)
        expect(none!.n).toBe(0)
        expect((yield* runState(fresh)).status).toBe("failed")
      }).pipe(Effect.provide(schedulerOnly(noSweep)))))
})

const TestClockNow = Clock.currentTimeMillis
