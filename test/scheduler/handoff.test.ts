import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as SqlClient from "@effect/sql/SqlClient"
import { Notifications } from "../../src/Db/Notifications.js"
import { type Created, RunStore } from "../../src/RunStore/RunStore.js"
import * as SqlRunStore from "../../src/RunStore/SqlRunStore.js"
import { Supervisor } from "../../src/Scheduler/Supervision.js"
import type { PolledRow } from "../../src/Contract/Domain/Run.js"
import { maxReserved, Wakeups } from "../../src/Scheduler/Dispatch.js"
import { addTrigger, runState, scheduled, seed } from "./support.js"

/** Runs before the store's next creating statement (once), so a test can act while the statement is under way. */
let beforeStatement: Effect.Effect<void> = Effect.void

/** The run store, with `beforeStatement` run just before each creating statement. */
const storeWithHook = Layer.effect(
  RunStore,
  Effect.map(RunStore, (repo) =>
    RunStore.of({
      ...repo,
      createMany: (triggerId, requests, options) =>
        Effect.suspend(() => {
          const hook = beforeStatement
          beforeStatement = Effect.void
          return Effect.zipRight(hook, repo.createMany(triggerId, requests, options))
        })
    }))
).pipe(Layer.provide(SqlRunStore.layer))

/** Wakeups alone: LISTEN never delivers anything here. */
const wakeupsOnly = Wakeups.Default.pipe(
  Layer.provide(Layer.succeed(Notifications, Notifications.of({ listen: () => Stream.never, notify: () => Effect.void })))
)
const row = (workerId: string) => ({ id: "run-1", worker_id: workerId }) as unknown as PolledRow

describe("handing a new run to a waiting claim poll (Wakeups offers)", () => {
  it.scoped("no offer from a poll that was woken since it looked (it looks again)", () =>
    Effect.gen(function*() {
      const wakeups = yield* Wakeups
      const since = wakeups.generationOf("w1")
      yield* wakeups.wake("w1")
      expect(yield* wakeups.offer("w1", "env", since)).toBeUndefined()
      expect(wakeups.reserve("env").workerIds).toEqual([])
    }).pipe(Effect.provide(wakeupsOnly)))

  it.scoped("a statement reserves the longest-waiting offers only, at most maxReserved; the next one the others", () =>
    Effect.gen(function*() {
      const wakeups = yield* Wakeups
      const workers = Array.from({ length: maxReserved + 10 }, (_, i) => `w${i}`)
      for (const workerId of workers) expect(yield* wakeups.offer(workerId, "env", 0)).toBeDefined()
      const first = wakeups.reserve("env")
      expect(first.workerIds).toEqual(workers.slice(0, maxReserved))
      // The rest are still open: a statement meanwhile may take them.
      const second = wakeups.reserve("env")
      expect(second.workerIds).toEqual(workers.slice(maxReserved))
      second.settle([])
      first.settle([])
      // Settled offers go back to the end: the ones the first statement did not get come first now.
      expect(wakeups.reserve("env").workerIds).toEqual([...workers.slice(maxReserved), ...workers.slice(0, maxReserved - 10)])
    }).pipe(Effect.provide(wakeupsOnly)))

  it.scoped("only workers whose every offer takes runs started are named to be handed runs started", () =>
    Effect.gen(function*() {
      const wakeups = yield* Wakeups
      yield* wakeups.offer("channel", "env", 0, { start: true })
      yield* wakeups.offer("claim-poll", "env", 0)
      yield* wakeups.offer("both", "env", 0, { start: true })
      yield* wakeups.offer("both", "env", 0)
      const reservation = wakeups.reserve("env")
      expect(reservation.workerIds).toEqual(["channel", "claim-poll", "both"])
      expect(reservation.startFor).toEqual(["channel"])
    }).pipe(Effect.provide(wakeupsOnly)))

  it.scoped("a reserved offer's worker gets the row the statement claimed for it", () =>
    Effect.gen(function*() {
      const wakeups = yield* Wakeups
      const offer = (yield* wakeups.offer("w1", "env", 0))!
      const waiting = yield* Effect.fork(wakeups.awaitOffer(offer))
      const reservation = wakeups.reserve("env")
      expect(reservation.workerIds).toEqual(["w1"])
      // Reserved: another run request in the environment gets nothing to offer.
      expect(wakeups.reserve("env").workerIds).toEqual([])
      expect(reservation.settle([row("w1")])).toEqual([])
      expect((yield* Fiber.join(waiting)).map((r) => r.id)).toEqual(["run-1"])
    }).pipe(Effect.provide(wakeupsOnly)))

  it.scoped("nothing claimed: the offer is open again, and a wake-up ends its wait empty", () =>
    Effect.gen(function*() {
      const wakeups = yield* Wakeups
      const offer = (yield* wakeups.offer("w1", "env", 0))!
      const waiting = yield* Effect.fork(wakeups.awaitOffer(offer))
      expect(wakeups.reserve("other-env").workerIds).toEqual([])
      wakeups.reserve("env").settle([])
      const again = wakeups.reserve("env")
      expect(again.workerIds).toEqual(["w1"])
      // Woken while reserved: it ends once the statement has settled.
      yield* wakeups.wake("w1")
      yield* Effect.yieldNow()
      expect(yield* Fiber.poll(waiting)).toSatisfy((o: any) => o._tag === "None")
      again.settle([])
      expect(yield* Fiber.join(waiting)).toEqual([])
    }).pipe(Effect.provide(wakeupsOnly)))

  it.scoped("a poll whose deadline passes while reserved waits for the statement and still gets its run", () =>
    Effect.gen(function*() {
      const wakeups = yield* Wakeups
      const offer = (yield* wakeups.offer("w1", "env", 0))!
      const reservation = wakeups.reserve("env")
      // Its deadline passes while a statement may be claiming a run for it.
      yield* wakeups.finishOffer(offer)
      const leaving = yield* Effect.fork(wakeups.awaitOffer(offer))
      yield* Effect.yieldNow()
      expect(yield* Fiber.poll(leaving)).toSatisfy((o: any) => o._tag === "None")
      expect(reservation.settle([row("w1")])).toEqual([])
      expect((yield* Fiber.join(leaving)).map((r) => r.id)).toEqual(["run-1"])
    }).pipe(Effect.provide(wakeupsOnly)))

  it.scoped("a poll interrupted while reserved is handed nothing", () =>
    Effect.gen(function*() {
      const wakeups = yield* Wakeups
      const offer = (yield* wakeups.offer("w1", "env", 0))!
      const waiting = yield* Effect.fork(wakeups.awaitOffer(offer))
      yield* Effect.yieldNow()
      const reservation = wakeups.reserve("env")
      yield* Fiber.interrupt(waiting)
      expect(reservation.settle([row("w1")]).map((r) => r.id)).toEqual(["run-1"])
      expect(wakeups.reserve("env").workerIds).toEqual([])
    }).pipe(Effect.provide(wakeupsOnly)))

  it.scoped("settled with several claimed rows: each goes to one poll of its worker; rows no poll can take come back", () =>
    Effect.gen(function*() {
      const wakeups = yield* Wakeups
      const row = (id: string, workerId: string) => ({ id, worker_id: workerId }) as unknown as PolledRow
      const a1 = (yield* wakeups.offer("a", "env", 0))!
      const a2 = (yield* wakeups.offer("a", "env", 0))!
      const b = (yield* wakeups.offer("b", "env", 0))!
      const waits = yield* Effect.all([a1, a2, b].map((o) => Effect.fork(wakeups.awaitOffer(o))))
      const reservation = wakeups.reserve("env")
      expect([...reservation.workerIds].sort()).toEqual(["a", "b"])
      const left = reservation.settle([row("r1", "a"), row("r2", "c"), row("r3", "b"), row("r4", "b")])
      expect(left.map((r) => r.id)).toEqual(["r2", "r4"])
      expect((yield* Fiber.join(waits[0]!)).map((r) => r.id)).toEqual(["r1"])
      expect((yield* Fiber.join(waits[2]!)).map((r) => r.id)).toEqual(["r3"])
      // a's second poll got nothing and is open again for the next statement.
      expect(wakeups.reserve("env").workerIds).toEqual(["a"])
    }).pipe(Effect.provide(wakeupsOnly)))
})

/** One run of the trigger requested as the seeded user, through the supervisor (as every front door). */
const requestOne = (s: { readonly userId: string; readonly environmentId: string }, triggerId: string) =>
  Effect.flatMap(Supervisor, (supervisor) =>
    supervisor.createRuns(
      triggerId,
      [{ input: undefined, idempotencyKey: undefined, actor: { _tag: "User", userId: s.userId, sessionHash: "t" } }],
      { environmentId: s.environmentId }
    )).pipe(Effect.map(([requested]) => requested as Created))

describe("run creation with a waiting claim poll (database)", () => {
  it.scoped("the run is claimed by its creating statement for the poll, with the heartbeat deadline", () =>
    scheduled({}, (t0) =>
      Effect.gen(function*() {
        const s = yield* seed(new Date(t0))
        const triggerId = yield* addTrigger(s.environmentId, { heartbeatTimeoutSeconds: 7 })
        const wakeups = yield* Wakeups
        const offer = (yield* wakeups.offer(s.workerId, s.environmentId, wakeups.generationOf(s.workerId)))!
        const waiting = yield* Effect.fork(wakeups.awaitOffer(offer))
        const created = yield* requestOne(s, triggerId)
        // The answer still reads as requested.
        expect(created.run.status).toBe("queued")
        const handed = yield* Fiber.join(waiting)
        expect(handed.map((r) => [r.id, r.status, r.trigger_name])).toEqual([[created.run.id, "claimed", "job"]])
        const state = yield* runState(created.run.id)
        expect(state.status).toBe("claimed")
        expect(state.worker_id).toBe(s.workerId)
        expect(state.deadline_at!.getTime() - state.assigned_at!.getTime()).toBe(7000)
      })))

  it.scoped("a poll that takes runs started (the channel's) is handed its run running, with the execution deadline and the started event", () =>
    scheduled({}, (t0) =>
      Effect.gen(function*() {
        const s = yield* seed(new Date(t0))
        const triggerId = yield* addTrigger(s.environmentId, { heartbeatTimeoutSeconds: 7, timeoutSeconds: 5 })
        const wakeups = yield* Wakeups
        const sql = yield* SqlClient.SqlClient
        const offer = (yield* wakeups.offer(s.workerId, s.environmentId, wakeups.generationOf(s.workerId), { start: true }))!
        const waiting = yield* Effect.fork(wakeups.awaitOffer(offer))
        const created = yield* requestOne(s, triggerId)
        const handed = yield* Fiber.join(waiting)
        expect(handed.map((r) => [r.id, r.status])).toEqual([[created.run.id, "running"]])
        const [state] = yield* sql<{ status: string; claimed_at: Date; started_at: Date; deadline_at: Date }>`
          SELECT status, claimed_at, started_at, deadline_at FROM runs WHERE id = ${created.run.id}`
        expect(state!.status).toBe("running")
        expect(state!.started_at.getTime()).toBe(state!.claimed_at.getTime())
        // As a start sets it: the heartbeat timeout, capped by the run's timeout.
        expect(state!.deadline_at.getTime() - state!.started_at.getTime()).toBe(5000)
        const events = yield* sql<{ status: string; reason: string }>`
          SELECT status, reason FROM run_events WHERE run_id = ${created.run.id} ORDER BY id`
        expect(events.map((e) => `${e.status}/${e.reason}`)).toEqual(["queued/requested", "assigned/assigned", "claimed/claimed", "running/started"])
      })))

  it.scoped("a run handed over started to a poll that went away during the statement is put back to assigned", () =>
    scheduled({ claimTimeoutSeconds: 30 }, (t0) =>
      Effect.gen(function*() {
        const s = yield* seed(new Date(t0))
        const triggerId = yield* addTrigger(s.environmentId)
        const wakeups = yield* Wakeups
        const offer = (yield* wakeups.offer(s.workerId, s.environmentId, wakeups.generationOf(s.workerId), { start: true }))!
        beforeStatement = wakeups.abandon(offer)
        const created = yield* requestOne(s, triggerId)
        expect(created.assigned?.claimed?.status).toBe("running")
        const state = yield* runState(created.run.id)
        expect(state.status).toBe("assigned")
        expect(state.deadline_at!.getTime()).toBe(t0 + 30_000)
      }), storeWithHook))

  it.scoped("the poll went away during the statement: the claim is undone and the run waits, assigned, for its next poll", () =>
    scheduled({ claimTimeoutSeconds: 30 }, (t0) =>
      Effect.gen(function*() {
        const s = yield* seed(new Date(t0))
        const triggerId = yield* addTrigger(s.environmentId)
        const wakeups = yield* Wakeups
        const offer = (yield* wakeups.offer(s.workerId, s.environmentId, wakeups.generationOf(s.workerId)))!
        // The poll leaves while the statement runs (its client disconnected).
        beforeStatement = wakeups.abandon(offer)
        const created = yield* requestOne(s, triggerId)
        expect(created.assigned?.claimed?.status).toBe("claimed")
        const state = yield* runState(created.run.id)
        expect(state.status).toBe("assigned")
        expect(state.worker_id).toBe(s.workerId)
        expect(state.deadline_at!.getTime()).toBe(t0 + 30_000)
      }), storeWithHook))
})
