import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import { type Actor, CurrentActor } from "../../src/Contract/Security.js"
import { type RequestedInput, RunRequests } from "../../src/Runs/RunRequests.js"
import { RunsRepo } from "../../src/Runs/RunsRepo.js"
import * as Tuning from "../../src/Config/Tuning.js"
import { Policy } from "../../src/Tenancy/Policy.js"
import { Wakeups } from "../../src/Scheduler/Dispatch.js"
import type { PolledRow } from "../../src/Contract/Domain/Run.js"
import { addTrigger, addWorker, scheduled, seed } from "../scheduler/support.js"

// `scheduled` provides the scheduler and the run store; RunRequests is built on them (and on the access policy).
const withRequests = <A, E, R>(body: (t0: number) => Effect.Effect<A, E, R>) =>
  scheduled({ maxAssignedPerWorker: 10 }, (t0) =>
    body(t0).pipe(Effect.provide(RunRequests.Default.pipe(Layer.provide(Layer.mergeAll(Policy.Default, RunsRepo.Default.pipe(Layer.provide(Tuning.layer({})))))))))

const actor = (userId: string): Actor => ({ _tag: "User", userId, sessionHash: "t" })
/** An operator key of the environment: its requests take the fast path straight to the creating statement. */
const operatorKey = (environmentId: string): Actor => ({ _tag: "ApiKey", keyId: crypto.randomUUID(), environmentId, role: "operator" })

/** One run request as `who`. */
const ask = (triggerId: string, who: Actor, input: RequestedInput, idempotencyKey: string | undefined) =>
  Effect.flatMap(RunRequests, (requests) =>
    requests.request(triggerId, Effect.succeed({ input }), { idempotencyKey }).pipe(Effect.provideService(CurrentActor, who)))

interface Row {
  readonly id: string
  readonly status: string
  readonly worker_id: string | null
  /** The inserting transaction: runs of one statement share it. */
  readonly xmin: string
  readonly input: unknown
}

const runsOf = (triggerId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<Row>`SELECT id, status, worker_id, xmin::text AS xmin, input FROM runs WHERE trigger_id = ${triggerId} ORDER BY id`).pipe(Effect.orDie)

describe("run requests committed in groups (RunRequests)", () => {
  it.scoped("concurrent requests for one trigger share statements; each gets its own run, input and audit row", () =>
    withRequests(() =>
      Effect.gen(function*() {
        const s = yield* seed(new Date(0))
        const triggerId = yield* addTrigger(s.environmentId)
        const answers = yield* Effect.all(
          Array.from({ length: 30 }, (_, i) =>
            ask(triggerId, actor(s.userId), i % 2 === 0 ? { value: { n: i } } : undefined, undefined)),
          { concurrency: "unbounded" }
        )
        const ids = answers.map((a) => a.run.id)
        expect(new Set(ids).size).toBe(30)
        expect(answers.every((a) => a!.created && a.run.status === "queued")).toBe(true)
        // Each answer carries its own input; odd ones the trigger's.
        expect(answers.map((a) => a.run.input)).toEqual(
          Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? { n: i } : { job: 1 }))
        )
        const rows = yield* runsOf(triggerId)
        expect(rows.map((r) => r.id).sort()).toEqual([...ids].sort())
        // Runs of one statement share its transaction: 30 runs in fewer statements than runs.
        expect(new Set(rows.map((r) => r.xmin)).size).toBeLessThan(30)
        const sql = yield* SqlClient.SqlClient
        const audited = yield* sql<{ target_id: string; actor_id: string }>`
          SELECT target_id, actor_id FROM audit_log WHERE action = 'run.requested' AND environment_id = ${s.environmentId}`
        expect(audited.map((a) => a.target_id).sort()).toEqual([...ids].sort())
        expect(audited.every((a) => a.actor_id === s.userId)).toBe(true)
      })))

  it.scoped("a repeated Idempotency-Key in the same group: one run, the repeat answered with it (created false)", () =>
    withRequests(() =>
      Effect.gen(function*() {
        const s = yield* seed(new Date(0))
        const triggerId = yield* addTrigger(s.environmentId)
        const request = (idempotencyKey: string | undefined) => ask(triggerId, actor(s.userId), undefined, idempotencyKey)
        const answers = yield* Effect.all([request(undefined), request("k1"), request("k1"), request("k2"), request("k1")], { concurrency: "unbounded" })
        const k1 = [answers[1], answers[2], answers[4]]
        expect(new Set(k1.map((a) => a.run.id)).size).toBe(1)
        expect(k1.filter((a) => a.created).length).toBe(1)
        expect(answers[3].created).toBe(true)
        expect((yield* runsOf(triggerId)).length).toBe(3)
      })))

  it.scoped("a gone trigger: every request in the group is refused as not found, nothing is stored", () =>
    withRequests(() =>
      Effect.gen(function*() {
        const s = yield* seed(new Date(0))
        const triggerId = yield* addTrigger(s.environmentId)
        const sql = yield* SqlClient.SqlClient
        yield* Effect.orDie(sql`UPDATE triggers SET deleted_at = now() WHERE id = ${triggerId}`)
        // An operator key's requests go to the creating statement as one group, which finds no live trigger.
        const answers = yield* Effect.all(
          Array.from({ length: 5 }, () => Effect.flip(ask(triggerId, operatorKey(s.environmentId), undefined, "same"))),
          { concurrency: "unbounded" }
        )
        expect(answers.map((a) => a._tag)).toEqual(["TriggerNotFound", "TriggerNotFound", "TriggerNotFound", "TriggerNotFound", "TriggerNotFound"])
        // Another environment's key for a live trigger finds nothing either: the trigger is not visible to it.
        const live = yield* addTrigger(s.environmentId)
        const elsewhere = yield* Effect.flip(ask(live, operatorKey(crypto.randomUUID()), undefined, undefined))
        expect(elsewhere).toMatchObject({ _tag: "NotVisible", what: "trigger" })
        // An MCP token reaches its own trigger only: another of its environment is not found.
        const mcp: Actor = { _tag: "Mcp", triggerId: triggerId, environmentId: s.environmentId, role: "operator" }
        expect(yield* Effect.flip(ask(live, mcp, undefined, undefined))).toMatchObject({ _tag: "TriggerNotFound", triggerId: live })
        expect((yield* runsOf(triggerId)).length + (yield* runsOf(live)).length).toBe(0)
      })))

  it.scoped("a group is spread as one-at-a-time placement would be: the fewest active runs first", () =>
    withRequests((t0) =>
      Effect.gen(function*() {
        const s = yield* seed(new Date(t0))
        const second = yield* addWorker({ environmentId: s.environmentId }, new Date(t0))
        const third = yield* addWorker({ environmentId: s.environmentId }, new Date(t0))
        const triggerId = yield* addTrigger(s.environmentId)
        yield* Effect.all(
          Array.from({ length: 9 }, () => ask(triggerId, actor(s.userId), undefined, undefined)),
          { concurrency: "unbounded" }
        )
        const rows = yield* runsOf(triggerId)
        // Several runs were placed by one statement (they share its transaction).
        expect(new Set(rows.map((r) => r.xmin)).size).toBeLessThan(9)
        expect(rows.every((r) => r.status === "assigned")).toBe(true)
        const perWorker = new Map<string, number>()
        for (const r of rows) perWorker.set(r.worker_id!, (perWorker.get(r.worker_id!) ?? 0) + 1)
        expect([...perWorker.keys()].sort()).toEqual([s.workerId, second.workerId, third.workerId].sort())
        expect([...perWorker.values()]).toEqual([3, 3, 3])
      })))

  it.scoped("with more workers than runs, only the least-loaded workers are given any (one statement or several)", () =>
    withRequests((t0) =>
      Effect.gen(function*() {
        const s = yield* seed(new Date(t0))
        const busy = [s, yield* addWorker({ environmentId: s.environmentId }, new Date(t0)), yield* addWorker({ environmentId: s.environmentId }, new Date(t0))]
        const idle = [yield* addWorker({ environmentId: s.environmentId }, new Date(t0)), yield* addWorker({ environmentId: s.environmentId }, new Date(t0))]
        const other = yield* addTrigger(s.environmentId)
        const sql = yield* SqlClient.SqlClient
        // Two running runs on each busy worker.
        for (const w of busy) {
          yield* sql`
            INSERT INTO runs (id, trigger_id, environment_id, status, worker_id, timeout_seconds, heartbeat_timeout_seconds,
                              max_retries, created_at, claimed_at, started_at, deadline_at)
            SELECT gen_random_uuid(), ${other}, ${s.environmentId}, 'running', ${w.workerId}, 3600, 3600, 0,
                   ${new Date(t0).toISOString()}::timestamptz, ${new Date(t0).toISOString()}::timestamptz,
                   ${new Date(t0).toISOString()}::timestamptz, ${new Date(t0 + 3_600_000).toISOString()}::timestamptz
            FROM generate_series(1, 2)`.pipe(Effect.orDie)
        }
        const triggerId = yield* addTrigger(s.environmentId)
        const request = ask(triggerId, actor(s.userId), undefined, undefined)
        // One alone, then three at once (grouped where they meet a statement in flight).
        yield* request
        yield* Effect.all([request, request, request], { concurrency: "unbounded" })
        const rows = yield* runsOf(triggerId)
        expect(rows.length).toBe(4)
        expect(rows.every((r) => r.status === "assigned")).toBe(true)
        // The idle workers reach two runs each before a busy one (two running) would get a third.
        const perWorker = new Map<string, number>()
        for (const r of rows) perWorker.set(r.worker_id!, (perWorker.get(r.worker_id!) ?? 0) + 1)
        expect([...perWorker.keys()].sort()).toEqual(idle.map((w) => w.workerId).sort())
        expect([...perWorker.values()]).toEqual([2, 2])
      })))

  it.scoped("a waiting claim poll in the group's environment is handed exactly one run; the rest are assigned", () =>
    withRequests((t0) =>
      Effect.gen(function*() {
        const s = yield* seed(new Date(t0))
        const triggerId = yield* addTrigger(s.environmentId)
        const wakeups = yield* Wakeups
        const offer = (yield* wakeups.offer(s.workerId, s.environmentId, wakeups.generationOf(s.workerId)))!
        const waiting = yield* Effect.fork(wakeups.awaitOffer(offer))
        const answers = yield* Effect.all(
          Array.from({ length: 4 }, () => ask(triggerId, actor(s.userId), undefined, undefined)),
          { concurrency: "unbounded" }
        )
        const handed: ReadonlyArray<PolledRow> = yield* Fiber.join(waiting)
        expect(handed.length).toBe(1)
        expect(answers.map((a) => a.run.id)).toContain(handed[0]!.id)
        const rows = yield* runsOf(triggerId)
        expect(rows.filter((r) => r.status === "claimed").map((r) => r.id)).toEqual([handed[0]!.id])
        expect(rows.filter((r) => r.status === "assigned").length).toBe(3)
      })))
})
