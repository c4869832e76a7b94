import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { RunNotFound, type RunRejection } from "../../src/Scheduler/RunRejection.js"
import { WorkerProtocol } from "../../src/WorkerProtocol/WorkerProtocol.js"
import { addTrigger, addWorker, requestRun, runState, scheduled, seed } from "./support.js"

/** The transaction that last wrote each run: runs moved by one statement share it. */
const writers = (runIds: ReadonlyArray<string>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ xmin: string }>`SELECT xmin::text AS xmin FROM runs WHERE id = ANY(${runIds}::uuid[])`).pipe(
    Effect.map((rows) => new Set(rows.map((row) => row.xmin)).size),
    Effect.orDie
  )

const outcome = <A>(effect: Effect.Effect<A, RunRejection>) =>
  Effect.map(Effect.either(effect), (result) =>
    Either.isRight(result) ? "ok" : `${result.left instanceof RunNotFound ? "NotFound" : "Conflict"}: ${result.left.message}`)

describe("one-call-per-step worker calls grouped per worker (WorkerProtocol)", () => {
  it.scoped("concurrent claims, starts, heartbeats and completes of one worker share statements; each call gets its own run", () =>
    scheduled({}, (t0) =>
      Effect.gen(function*() {
        const s = yield* seed(new Date(t0))
        const triggerId = yield* addTrigger(s.environmentId, { heartbeatTimeoutSeconds: 30 })
        const protocol = yield* WorkerProtocol
        const runIds: Array<string> = []
        for (let i = 0; i < 12; i++) runIds.push(yield* requestRun(triggerId, s.userId))
        const all = <A, E>(f: (runId: string) => Effect.Effect<A, E>) => Effect.all(runIds.map(f), { concurrency: "unbounded" })

        const claimed = yield* all((runId) => protocol.claim(s.workerId, runId))
        expect(claimed.map((row) => [row.id, row.status])).toEqual(runIds.map((id) => [id, "claimed"]))
        expect(yield* writers(runIds)).toBeLessThan(12)

        const started = yield* all((runId) => protocol.start(s.workerId, runId))
        expect(started.map((row) => [row.id, row.status])).toEqual(runIds.map((id) => [id, "running"]))
        expect(yield* writers(runIds)).toBeLessThan(12)

        const beats = yield* all((runId) => protocol.heartbeat(s.workerId, runId))
        expect(beats.every((row, i) => row.id === runIds[i] && row.last_heartbeat_at !== null)).toBe(true)

        const ended = yield* all((runId) =>
          protocol.complete(s.workerId, runId, { status: "succeeded", stdout: `out ${runId}`, costUsd: "0.5" }))
        expect(ended.map((t) => [t.run.id, t.run.status, t.run.short_message])).toEqual(
          runIds.map((id) => [id, "succeeded", `out ${id}`])
        )
        expect(yield* writers(runIds)).toBeLessThan(12)
        for (const runId of runIds) expect((yield* runState(runId)).status).toBe("succeeded")
      })))

  it.scoped("a group answers each call as alone: another worker's run 404, a wrong state 409, the same run twice once", () =>
    scheduled({}, (t0) =>
      Effect.gen(function*() {
        const s = yield* seed(new Date(t0))
        const other = yield* addWorker({ environmentId: s.environmentId }, new Date(t0))
        const triggerId = yield* addTrigger(s.environmentId, { heartbeatTimeoutSeconds: 30 })
        const protocol = yield* WorkerProtocol
        const sql = yield* SqlClient.SqlClient
        const mine = yield* requestRun(triggerId, s.userId)
        const assignedOnly = yield* requestRun(triggerId, s.userId)
        const theirs = yield* requestRun(triggerId, s.userId)
        // Pin each run to its worker, whatever placement chose.
        yield* Effect.orDie(sql`UPDATE runs SET worker_id = ${s.workerId} WHERE id IN (${mine}, ${assignedOnly})`)
        yield* Effect.orDie(sql`UPDATE runs SET worker_id = ${other.workerId} WHERE id = ${theirs}`)
        yield* protocol.claim(s.workerId, mine)

        const answers = yield* Effect.all([
          outcome(protocol.start(s.workerId, mine)),
          outcome(protocol.start(s.workerId, mine)),
          outcome(protocol.start(s.workerId, assignedOnly)),
          outcome(protocol.start(s.workerId, theirs)),
          outcome(protocol.start(s.workerId, crypto.randomUUID()))
        ], { concurrency: "unbounded" })
        expect(answers).toEqual([
          "ok",
          "Conflict: cannot start: deadline passed or cannot start a running run",
          "Conflict: cannot start: deadline passed or cannot start a assigned run",
          "NotFound: run not found",
          "NotFound: run not found"
        ])
        expect((yield* runState(theirs)).status).toBe("assigned")

        const completes = yield* Effect.all([
          outcome(protocol.complete(s.workerId, mine, { status: "succeeded" })),
          outcome(protocol.complete(s.workerId, mine, { status: "failed" })),
          outcome(protocol.complete(s.workerId, theirs, { status: "succeeded" }))
        ], { concurrency: "unbounded" })
        expect(completes).toEqual(["ok", "Conflict: cannot complete: run is succeeded", "NotFound: run not found"])
        expect((yield* runState(mine)).status).toBe("succeeded")
      })))
})
