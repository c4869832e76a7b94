import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/TestClock"
import { Assignment } from "../../src/Scheduler/Dispatch.js"
import { Supervisor } from "../../src/Scheduler/Supervision.js"
import { WorkerProtocol } from "../../src/WorkerProtocol/WorkerProtocol.js"
import { addTrigger, eventually, requestRun, runState, scheduled, seed } from "../scheduler/support.js"

/** Large enough that only the per-run fibers act, never the sweep. */
const noSweep = { sweepIntervalMillis: 3_600_000 }

interface Step {
  readonly reason: string
  readonly status: string
  readonly worker_id: string | null
  readonly at: Date
}

const steps = (runId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return yield* sql<Step>`SELECT reason, status, worker_id, at FROM run_events WHERE run_id = ${runId} ORDER BY id`
  }).pipe(Effect.orDie)

const reasons = (runId: string) => Effect.map(steps(runId), (rows) => rows.map((r) => `${r.reason}:${r.status}`))

describe("run timeline: time-outs and releases (TestClock)", () => {
  it.scoped("claim timeout: claim_timeout (back to queued, naming the worker that let it pass), then assigned again", () =>
    scheduled(noSweep, (t0) =>
      Effect.gen(function*() {
        const env = yield* seed(new Date(t0))
        const trigger = yield* addTrigger(env.environmentId)
        const runId = yield* requestRun(trigger, env.userId)
        yield* (yield* Supervisor).assignAndWatch(env.environmentId)
        yield* TestClock.adjust("3500 millis")
        yield* eventually(reasons(runId), (r) => r.length >= 4)
        const rows = yield* steps(runId)
        expect(rows.map((r) => `${r.reason}:${r.status}`)).toEqual([
          "requested:queued", "assigned:assigned", "claim_timeout:queued", "assigned:assigned"
        ])
        expect(rows[2]!.worker_id).toBe(env.workerId)
        // Recorded at the supervisor's clock: the claim deadline passed at t0 + 3 s.
        expect(rows[2]!.at.getTime()).toBeGreaterThanOrEqual(t0 + 3000)
      })))

  it.scoped("heartbeat timeout: heartbeat_timeout with the run's end time (no follow-up: the grouped time-out)", () =>
    scheduled(noSweep, (t0) =>
      Effect.gen(function*() {
        const env = yield* seed(new Date(t0))
        const trigger = yield* addTrigger(env.environmentId, { heartbeatTimeoutSeconds: 5 })
        const runId = yield* requestRun(trigger, env.userId)
        const protocol = yield* WorkerProtocol
        yield* protocol.poll(env.workerId, env.environmentId, { wait: 0, claim: true, max: 1 })
        yield* protocol.start(env.workerId, runId)
        yield* TestClock.adjust("5500 millis")
        const ended = yield* eventually(runState(runId), (r) => r.status === "timed_out")
        expect(ended.fault_class).toBe("infra")
        const rows = yield* steps(runId)
        expect(rows.map((r) => `${r.reason}:${r.status}`)).toEqual([
          "requested:queued", "assigned:assigned", "claimed:claimed", "started:running", "heartbeat_timeout:timed_out"
        ])
        expect(rows[4]!.worker_id).toBe(env.workerId)
        expect(rows[4]!.at.getTime()).toBe(t0 + 5001)
      })))

  it.scoped("execution timeout with a retry left (the time-out with follow-up): execution_timeout; the retry is requested", () =>
    scheduled(noSweep, (t0) =>
      Effect.gen(function*() {
        const env = yield* seed(new Date(t0))
        const trigger = yield* addTrigger(env.environmentId, { heartbeatTimeoutSeconds: 5, timeoutSeconds: 4, maxRetries: 1 })
        const runId = yield* requestRun(trigger, env.userId)
        const protocol = yield* WorkerProtocol
        yield* protocol.poll(env.workerId, env.environmentId, { wait: 0, claim: true, max: 1 })
        yield* protocol.start(env.workerId, runId)
        yield* TestClock.adjust("3 seconds")
        yield* protocol.heartbeat(env.workerId, runId)
        yield* TestClock.adjust("1500 millis")
        const ended = yield* eventually(runState(runId), (r) => r.status === "timed_out")
        expect(ended.fault_class).toBe("client")
        expect((yield* reasons(runId)).at(-1)).toBe("execution_timeout:timed_out")
        const sql = yield* SqlClient.SqlClient
        const [retry] = yield* sql<{ id: string }>`SELECT id FROM runs WHERE retry_of_run_id = ${runId}`.pipe(Effect.orDie)
        expect((yield* reasons(retry!.id))[0]).toBe("requested:queued")
      })))
})

describe("run timeline: offline workers", () => {
  it.scoped("an assigned run of a worker gone offline is released (back to queued, naming that worker)", () =>
    scheduled(noSweep, (t0) =>
      Effect.gen(function*() {
        // Seen 29 s ago: online at assignment, offline (30 s) a second later.
        const env = yield* seed(new Date(t0 - 29_000))
        const trigger = yield* addTrigger(env.environmentId)
        const runId = yield* requestRun(trigger, env.userId)
        yield* (yield* Supervisor).assignAndWatch(env.environmentId)
        expect((yield* runState(runId)).status).toBe("assigned")
        yield* TestClock.adjust("1500 millis")
        expect(yield* (yield* Assignment).releaseOffline).toEqual([env.environmentId])
        const rows = yield* steps(runId)
        expect(rows.map((r) => `${r.reason}:${r.status}`)).toEqual(["requested:queued", "assigned:assigned", "released:queued"])
        expect(rows[2]!.worker_id).toBe(env.workerId)
      })))
})
