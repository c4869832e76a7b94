import * as Effect from "effect/Effect"
import { Assignment } from "./Assignment.js"
import { Supervisor } from "./Supervisor.js"
import { Transitions } from "./Transitions.js"

/**
 * What happens to a revoked worker's runs, once the revocation has committed
 * (from then on the worker is assigned nothing and its token is refused):
 * assigned runs go back to `queued` and are handed out again; claimed and
 * running runs end `timed_out` (faultClass `infra`), and their retries are
 * handed out. Runs ending meanwhile by other means are left to those.
 *
 * Should the process die between the revocation and this, nothing is lost:
 * supervision ends those runs at their deadlines as for any silent worker.
 */
export class Revocation extends Effect.Service<Revocation>()("Scheduler/Revocation", {
  effect: Effect.gen(function*() {
    const assignment = yield* Assignment
    const transitions = yield* Transitions
    const supervisor = yield* Supervisor

    const workerRevoked = (workerId: string): Effect.Effect<{ readonly released: number; readonly timedOut: number }> =>
      Effect.gen(function*() {
        const released = yield* assignment.releaseWorker(workerId)
        const ended = yield* transitions.timeOutRevoked(workerId)
        // Their fibers have nothing left to watch (a reassigned run is watched anew below).
        for (const run of released) yield* supervisor.release(run.id)
        for (const terminal of ended) yield* supervisor.release(terminal.run.id)
        const environments = new Set([
          ...released.map((run) => run.environment_id),
          ...ended.flatMap((terminal) => terminal.retry === undefined ? [] : [terminal.retry.environment_id])
        ])
        for (const environmentId of environments) yield* supervisor.assignAndWatch(environmentId)
        if (released.length > 0 || ended.length > 0) {
          yield* Effect.logInfo("revoked worker's runs released and timed out").pipe(
            Effect.annotateLogs({ released: released.length, timedOut: ended.length })
          )
        }
        return { released: released.length, timedOut: ended.length }
      }).pipe(Effect.annotateLogs({ workerId }), Effect.withSpan("Revocation.workerRevoked"))

    return { workerRevoked } as const
  })
}) {}
