import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import type { AppendLogsPayload } from "../../src/Contract/RunLogsApi.js"
import type { WorkerCalls } from "../../src/WorkerSdk/Calls.js"
import * as RunLogShipping from "../../src/WorkerSdk/RunLog.js"

/** The calls a shipper makes: what the worker would send, recorded (the service's side is tested in logs.test.ts). */
const recording = () => {
  const sent: Array<{ readonly at: number; readonly payload: AppendLogsPayload }> = []
  const calls = { logs: (_runId: string, payload: AppendLogsPayload) => Effect.sync(() => sent.push({ at: Date.now(), payload })) }
  return { sent, calls: calls as unknown as WorkerCalls }
}

describe("the worker's log shipper", () => {
  it.live("a chatty handler's lines go in calls at most every 200 ms, whole and numbered; the first line at once, the last on flush", () =>
    Effect.gen(function*() {
      const { calls, sent } = recording()
      const shipper = yield* RunLogShipping.make(calls, "run-1", Schedule.stop)
      const started = Date.now()
      // One line every 5 ms for 1 s: about 200 lines.
      let written = 0
      while (Date.now() - started < 1000) {
        yield* shipper.log.write("stdout", `line ${++written}`)
        yield* Effect.sleep("5 millis")
      }
      yield* shipper.flush
      const elapsed = Date.now() - started

      // Every line once, in order, each call numbered after the last.
      const texts = sent.flatMap((call) => call.payload.lines.map((line) => line.text))
      expect(texts).toEqual(Array.from({ length: written }, (_, i) => `line ${i + 1}`))
      let next = 1
      for (const call of sent) {
        expect(call.payload.sequence).toBe(next)
        next += call.payload.lines.length
      }
      // The first line went alone, before the second was written.
      expect(sent[0]!.payload.lines.length).toBe(1)
      // Paced: one call per 200 ms at most, plus the first and the flush's.
      expect(sent.length).toBeLessThanOrEqual(Math.floor(elapsed / RunLogShipping.sendIntervalMillis) + 2)
      for (let i = 2; i < sent.length - 1; i++) {
        expect(sent[i]!.at - sent[i - 1]!.at).toBeGreaterThanOrEqual(RunLogShipping.sendIntervalMillis - 5)
      }
    }).pipe(Effect.scoped))

  it.live("a line written after a quiet spell goes at once, and a flush does not wait out the pace", () =>
    Effect.gen(function*() {
      const { calls, sent } = recording()
      // A long pace, so that waiting it out is far from what a loaded machine takes to answer.
      const pace = 3000
      const shipper = yield* RunLogShipping.make(calls, "run-1", Schedule.stop, pace)
      yield* shipper.log.write("stdout", "first")
      yield* shipper.flush
      yield* Effect.sleep(`${pace + 50} millis`)
      yield* shipper.log.write("stderr", "after a pause")
      yield* shipper.flush
      // Within the pace of the last call: without the flush cutting it short it would wait.
      yield* shipper.log.write("stdout", "last")
      const before = Date.now()
      yield* shipper.flush
      expect(sent.map((call) => call.payload.lines.map((line) => line.text))).toEqual([["first"], ["after a pause"], ["last"]])
      // A flush answered without the pace's wait (3 s).
      expect(Date.now() - before).toBeLessThan(pace / 2)
    }).pipe(Effect.scoped))
})
