import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import { WorkerProtocol } from "../../src/WorkerProtocol/WorkerProtocol.js"
import type { Channel } from "../../src/WorkerChannel/Connections.js"
import { Pushes } from "../../src/WorkerChannel/Pushes.js"
import { addTrigger, requestRun, scheduled, seed, settle } from "../scheduler/support.js"

/** Large enough that only the per-run fibers act, never the sweep. */
const noSweep = { sweepIntervalMillis: 3_600_000 }

/** The real protocol, counting the polls the channel makes (each a few statements). */
const countingPolls = (polls: { n: number }) =>
  Layer.effect(
    WorkerProtocol,
    Effect.map(WorkerProtocol, (protocol) =>
      WorkerProtocol.make({
        ...protocol,
        pollAnswer: (...args) => Effect.zipRight(Effect.sync(() => polls.n++), protocol.pollAnswer(...args))
      }))
  )

const channelOf = (workerId: string, environmentId: string, credit: number): Channel => ({
  key: "test",
  worker: { workerId, environmentId } as Channel["worker"],
  credit,
  granted: Deferred.unsafeMake(FiberId.none),
  closed: false,
  end: () => {}
})

describe("channel pushes (TestClock)", () => {
  it.scoped("an idle connection looks at the database once per wait (5 minutes), not every 30 s; a run is still pushed at once", () =>
    scheduled(noSweep, (t0) =>
      Effect.gen(function*() {
        const env = yield* seed(new Date(t0))
        const trigger = yield* addTrigger(env.environmentId)
        const polls = { n: 0 }
        const pushes = yield* Effect.provide(Pushes, Pushes.Default.pipe(Layer.provide(countingPolls(polls))))
        const pushed = yield* pushes(channelOf(env.workerId, env.environmentId, 1)).pipe(Stream.take(1), Stream.runCollect, Effect.fork)
        yield* settle
        expect(polls.n).toBe(1)

        // Ten minutes idle, in 30-second steps (each step fires the timers due by then).
        for (let i = 0; i < 20; i++) {
          yield* TestClock.adjust("30 seconds")
          yield* settle
        }
        // The first poll, and one more after each 5-minute wait: a REST long poll's cadence would be 21.
        expect(polls.n).toBe(3)

        // Woken by the assignment, the waiting poll takes the run without waiting for its timer.
        const runId = yield* requestRun(trigger, env.userId)
        const [event] = Chunk.toReadonlyArray(yield* Fiber.join(pushed))
        expect(event!.runs.map((run) => run.id)).toEqual([runId])
        expect(event!.runs[0]!.status).toBe("running")
      })))
})
