import { expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { createTrigger, registerWorker, setupEnvironment } from "../support/Fixtures.js"
import { call, layer } from "../support/TestApp.js"
import { requestRun } from "../sdk/support.js"

/**
 * Where runs go among workers that are equally loaded: in turn (the one given
 * a run least recently first), and to a worker whose long poll waits before
 * one that merely registered and never polled.
 */

const workerOf = (env: { readonly user: { readonly cookie: string } }, triggerId: string, runId: string) =>
  Effect.map(call("GET", `/api/v1/triggers/${triggerId}/runs?limit=200`, { cookie: env.user.cookie }), (res) =>
    (res.body.items as Array<any>).find((run) => run.id === runId)?.workerId as string | null)

withLayer(layer(), { excludeTestServices: true })("placement among equals", (it) => {
  it.effect("four idle workers, runs one after another: each worker takes its turn, none takes them all", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const trigger = yield* createTrigger(env, { name: "spread" })
      const workers = [yield* registerWorker(env), yield* registerWorker(env), yield* registerWorker(env), yield* registerWorker(env)]
      const tokens = new Map(workers.map((w) => [w.workerId, w.token]))
      const given = new Map<string, number>()
      for (let i = 0; i < 12; i++) {
        const runId = yield* requestRun(env, trigger.id)
        const workerId = yield* workerOf(env, trigger.id, runId)
        expect(workerId).not.toBeNull()
        given.set(workerId!, (given.get(workerId!) ?? 0) + 1)
        // The worker does the run at once: every worker is idle again before the next one.
        const bearer = tokens.get(workerId!)!
        for (const step of ["claim", "start"]) {
          expect((yield* call("POST", `/api/v1/workers/${workerId}/runs/${runId}/${step}`, { bearer })).status).toBe(200)
        }
        const done = yield* call("POST", `/api/v1/workers/${workerId}/runs/${runId}/complete`, { bearer, body: { status: "succeeded" } })
        expect(done.status).toBe(200)
      }
      expect([...given.values()].sort()).toEqual([3, 3, 3, 3])
    }), 60_000)

  it.effect("a run goes to the worker whose long poll waits, not to one that registered a moment ago and never polled", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const trigger = yield* createTrigger(env, { name: "waiting poll" })
      // Registered first, so it wins a tie on the id: it never polls.
      yield* registerWorker(env, "registered only")
      const poller = yield* registerWorker(env, "polling")
      const poll = yield* call("GET", `/api/v1/workers/${poller.workerId}/poll?wait=10`, { bearer: poller.token }).pipe(Effect.fork)
      yield* Effect.sleep("500 millis")
      const runId = yield* requestRun(env, trigger.id)
      expect(yield* workerOf(env, trigger.id, runId)).toBe(poller.workerId)
      const answered = yield* Fiber.join(poll)
      expect(answered.status).toBe(200)
      expect(answered.body.runs.map((run: any) => run.id)).toEqual([runId])
    }), 30_000)
})
