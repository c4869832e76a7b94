import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"
import { CurrentActor } from "../../src/Contract/Security.js"
import { RunCancellation } from "../../src/Runs/Cancellation.js"
import { Supervisor } from "../../src/Scheduler/Supervision.js"
import { Transitions } from "../../src/Scheduler/Transitions.js"
import { WorkerProtocol } from "../../src/WorkerProtocol/WorkerProtocol.js"
import { Policy } from "../../src/Tenancy/Policy.js"
import { uuidv7 } from "../../src/Crypto/Ids.js"
import * as Tuning from "../../src/Config/Tuning.js"
import { addTrigger, eventually, requestRun, runState, scheduled, seed, settle, type Seed } from "./support.js"

/** Large enough that only the per-run fibers act, never the sweep. */
const noSweep = { sweepIntervalMillis: 3_600_000 }

/** The cancel as `POST /runs/{id}/cancel` makes it, by an operator key of the run's environment. */
const cancelAs = (env: Seed, runId: string) =>
  Effect.flatMap(RunCancellation, (cancellation) => cancellation.cancel(runId)).pipe(
    Effect.provideService(CurrentActor, { _tag: "ApiKey", keyId: uuidv7(), environmentId: env.environmentId, role: "operator" }),
    Effect.provide(RunCancellation.Default.pipe(Layer.provide(Policy.Default), Layer.provide(Tuning.layer({}))))
  )

const counts = (runId: string, triggerId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ outbox: number; runs: number; audits: number }>`
      SELECT (SELECT count(*)::int FROM webhook_outbox WHERE run_id = ${runId}) AS outbox,
             (SELECT count(*)::int FROM runs WHERE trigger_id = ${triggerId}) AS runs,
             (SELECT count(*)::int FROM audit_log WHERE target_id = ${runId} AND action = 'run.cancelled') AS audits`
    return row!
  }).pipe(Effect.orDie)

/** A run the seeded worker has claimed and started. */
const runningRun = (env: Seed, triggerId: string) =>
  Effect.gen(function*() {
    const runId = yield* requestRun(triggerId, env.userId)
    const protocol = yield* WorkerProtocol
    const claimed = yield* protocol.poll(env.workerId, env.environmentId, { wait: 0, claim: true, max: 1, start: true })
    expect(claimed.map((r) => r.id)).toEqual([runId])
    return runId
  })

describe("cancellation (TestClock)", () => {
  it.scoped("grace period: heartbeats cannot move the deadline past it; then the supervisor ends the run cancelled", () =>
    scheduled({ ...noSweep, cancelGraceSeconds: 10 }, (t0) =>
      Effect.gen(function*() {
        const env = yield* seed(new Date(t0))
        const trigger = yield* addTrigger(env.environmentId, { heartbeatTimeoutSeconds: 5, maxRetries: 2, webhookUrl: "https://hooks.example.com/x" })
        const runId = yield* runningRun(env, trigger)
        const protocol = yield* WorkerProtocol
        const requested = yield* cancelAs(env, runId)
        expect(requested).toMatchObject({ status: "running", ended_at: null })
        expect(requested.cancel_requested_at!.getTime()).toBe(t0)
        // The heartbeat deadline (t0 + 5 s) comes first and stands.
        expect(requested.deadline_at!.getTime()).toBe(t0 + 5000)
        yield* TestClock.adjust("4 seconds")
        expect((yield* protocol.heartbeat(env.workerId, runId)).deadline_at!.getTime()).toBe(t0 + 9000)
        yield* TestClock.adjust("4 seconds")
        // Capped at the end of the grace period.
        const capped = yield* protocol.heartbeat(env.workerId, runId)
        expect(capped.deadline_at!.getTime()).toBe(t0 + 10_000)
        expect(capped.cancel_requested_at!.getTime()).toBe(t0)
        yield* TestClock.adjust("1900 millis")
        yield* settle
        expect((yield* runState(runId)).status).toBe("running")
        yield* TestClock.adjust("200 millis")
        const ended = yield* eventually(runState(runId), (r) => r.status === "cancelled")
        expect(ended.fault_class).toBe("none")
        // Started at t0; ended 1 ms past the grace period.
        expect(Number(ended.duration_ms)).toBe(10_001)
        expect(yield* counts(runId, trigger)).toEqual({ outbox: 1, runs: 1, audits: 1 })
        const late = yield* Effect.flip(protocol.complete(env.workerId, runId, { status: "succeeded" }))
        expect(late.message).toMatch(/cancelled/)
      })))

  it.scoped("a silent worker: a cancel leaves the earlier heartbeat deadline, which then ends the run cancelled, not timed_out", () =>
    scheduled({ ...noSweep, cancelGraceSeconds: 30 }, (t0) =>
      Effect.gen(function*() {
        const env = yield* seed(new Date(t0))
        const trigger = yield* addTrigger(env.environmentId, { heartbeatTimeoutSeconds: 5, maxRetries: 1 })
        const runId = yield* runningRun(env, trigger)
        yield* TestClock.adjust("2 seconds")
        yield* cancelAs(env, runId)
        yield* TestClock.adjust("3100 millis")
        const ended = yield* eventually(runState(runId), (r) => r.status === "cancelled")
        expect(ended.fault_class).toBe("none")
        // Never retried, though retries were left.
        expect((yield* counts(runId, trigger)).runs).toBe(1)
      })))

  it.scoped("a cancel racing the time-out of a run past its deadline: exactly one terminal transition and one outbox row", () =>
    scheduled(noSweep, (t0) =>
      Effect.gen(function*() {
        const env = yield* seed(new Date(t0))
        const transitions = yield* Transitions
        const supervisor = yield* Supervisor
        for (let i = 0; i < 5; i++) {
          const trigger = yield* addTrigger(env.environmentId, { heartbeatTimeoutSeconds: 5, webhookUrl: "https://hooks.example.com/x" })
          const runId = yield* runningRun(env, trigger)
          // The race is run by hand: this instance's own fiber must not time the run out first.
          yield* supervisor.release(runId)
          yield* TestClock.adjust("6 seconds")
          const [cancelled, timedOut] = yield* Effect.all([
            Effect.either(cancelAs(env, runId)),
            transitions.timeOut(runId)
          ], { concurrency: "unbounded" })
          const final = yield* runState(runId)
          const after = yield* counts(runId, trigger)
          expect(after.outbox).toBe(1)
          // The time-out statement ended the run either way: timed out (then the cancel is a 409), or
          // cancelled (the cancel request came first, so the passed deadline ends it cancelled).
          expect(timedOut?.run.status).toBe(final.status)
          if (final.status === "timed_out") {
            expect(cancelled._tag).toBe("Left")
            expect(after.audits).toBe(0)
          } else {
            expect(final.status).toBe("cancelled")
            expect(cancelled._tag).toBe("Right")
            expect(after.audits).toBe(1)
          }
        }
      })))

  it.scoped("concurrent cancels of a running run: one request (one audit row), every caller answered the run", () =>
    scheduled(noSweep, (t0) =>
      Effect.gen(function*() {
        const env = yield* seed(new Date(t0))
        const trigger = yield* addTrigger(env.environmentId, { heartbeatTimeoutSeconds: 60 })
        const runId = yield* runningRun(env, trigger)
        const answers = yield* Effect.all(Array.from({ length: 5 }, () => cancelAs(env, runId)), { concurrency: "unbounded" })
        expect(new Set(answers.map((run) => run.cancel_requested_at!.getTime()))).toEqual(new Set([t0]))
        expect(answers.every((run) => run.status === "running")).toBe(true)
        expect((yield* counts(runId, trigger)).audits).toBe(1)
      })))
})
