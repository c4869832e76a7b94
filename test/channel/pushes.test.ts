import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import { WorkerProtocol } from "../../src/WorkerProtocol/WorkerProtocol.js"
import { type Channel, Connections } from "../../src/WorkerChannel/Connections.js"
import { Pushes } from "../../src/WorkerChannel/Pushes.js"
import { addTrigger, requestRun, scheduled, seed, settle } from "../scheduler/support.js"

/** Large enough that only the per-run fibers act, never the sweep. */
const noSweep = { sweepIntervalMillis: 3_600_000 }

/** The real protocol, counting the looks the channel makes (each one statement, after the environment's assignment pass). */
const countingPolls = (polls: { n: number }) =>
  Layer.effect(
    WorkerProtocol,
    Effect.map(WorkerProtocol, (protocol) =>
      WorkerProtocol.make({
        ...protocol,
        pushLook: (...args) => Effect.zipRight(Effect.sync(() => polls.n++), protocol.pushLook(...args))
      }))
  )

const channelOf = (workerId: string, environmentId: string, credit: number): Channel => ({
  key: "test",
  worker: { workerId, environmentId } as Channel["worker"],
  credit,
  grants: 0,
  onGrant: undefined,
  closed: false,
  end: () => {}
})

/** Timers registered on the TestClock (every sleep waiting for it). */
const timers = Effect.map(TestClock.sleeps(), Chunk.size)

describe("channel pushes (TestClock)", () => {
  it.scoped("an idle connection looks at the database once and sets no timer while it waits; a run is still pushed at once", () =>
    scheduled(noSweep, (t0) =>
      Effect.gen(function*() {
        const env = yield* seed(new Date(t0))
        const trigger = yield* addTrigger(env.environmentId)
        const polls = { n: 0 }
        const pushes = yield* Effect.provide(Pushes, Pushes.Default.pipe(Layer.provide(countingPolls(polls))))
        yield* settle
        const before = yield* timers
        const pushed = yield* pushes(channelOf(env.workerId, env.environmentId, 1)).pipe(Stream.take(1), Stream.runCollect, Effect.fork)
        yield* settle
        expect(polls.n).toBe(1)
        // Waiting as an offer with no deadline: no timer (and no fiber to fire it).
        expect(yield* timers).toBe(before)

        // Ten minutes idle, in 1-minute steps (each step fires the timers due by then), twice the old 5-minute safety net.
        for (let i = 0; i < 10; i++) {
          yield* TestClock.adjust("1 minute")
          yield* settle
        }
        // Still the first poll: a REST long poll's cadence (30 s) would be 21.
        expect(polls.n).toBe(1)
        // The presence touch (every 2 s of the clock) keeps the waiting worker online. A one-minute jump
        // fires it only while the jump is still running, which on Postgres may leave the last touch up to a
        // minute behind (past the 30 s offline threshold): one more 2 s step touches it at the clock's time.
        yield* TestClock.adjust("2 seconds")
        yield* settle
        expect(polls.n).toBe(1)

        // Woken by the assignment, the waiting poll takes the run without waiting for its timer.
        const runId = yield* requestRun(trigger, env.userId)
        const [event] = Chunk.toReadonlyArray(yield* Fiber.join(pushed))
        expect(event!.runs.map((run) => run.id)).toEqual([runId])
        expect(event!.runs[0]!.status).toBe("running")
      })))
})

describe("channel pushes with no slots left (TestClock)", () => {
  it.scoped("a connection with no slots waits for a grant with no timer; the run assigned meanwhile is pushed once slots are granted", () =>
    scheduled(noSweep, (t0) =>
      Effect.gen(function*() {
        const env = yield* seed(new Date(t0))
        const trigger = yield* addTrigger(env.environmentId)
        const polls = { n: 0 }
        const { connections, pushes } = yield* Effect.provide(
          Effect.all({ connections: Connections, pushes: Pushes }),
          Layer.mergeAll(Connections.Default, Pushes.Default.pipe(Layer.provide(countingPolls(polls))))
        )
        yield* settle
        const before = yield* timers
        const channel = yield* connections.open({ workerId: env.workerId, environmentId: env.environmentId } as Channel["worker"])
        const pushed = yield* pushes(channel).pipe(Stream.take(1), Stream.runCollect, Effect.fork)
        yield* settle
        // No slots: no poll, and no timer while it waits.
        expect(polls.n).toBe(0)
        expect(yield* timers).toBe(before)

        // The run is assigned to the worker (it is the only one); the wake-up finds no slot, so it waits on.
        const runId = yield* requestRun(trigger, env.userId)
        yield* settle
        for (let i = 0; i < 20; i++) {
          yield* TestClock.adjust("30 seconds")
          yield* settle
        }
        expect(polls.n).toBe(0)
        expect(Option.isNone(yield* Fiber.poll(pushed))).toBe(true)

        // A slot granted: the connection polls, claims and starts the run it was assigned.
        connections.grant(channel, 1)
        const [event] = Chunk.toReadonlyArray(yield* Fiber.join(pushed))
        expect(event!.runs.map((run) => run.id)).toEqual([runId])
        expect(event!.runs[0]!.status).toBe("running")
        expect(channel.credit).toBe(0)
      })))
})
