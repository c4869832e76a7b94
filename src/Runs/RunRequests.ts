import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberSet from "effect/FiberSet"
import * as Runtime from "effect/Runtime"
import { Supervisor } from "../Scheduler/Supervisor.js"
import { type Created, type CreateRequest, RunsRepo } from "./RunsRepo.js"

interface Pending {
  readonly request: CreateRequest
  readonly resume: (result: Effect.Effect<Created | undefined>) => void
}

/** The requests for one trigger (in one environment) waiting for the next statement. */
interface Group {
  readonly triggerId: string
  readonly environmentId: string
  readonly queue: Array<Pending>
}

/** The most runs one creating statement inserts. */
export const maxRunsPerStatement = 100

/**
 * Run requests, committed in groups. While a trigger's creating statement is
 * in flight, further requests for that trigger wait, and the next statement
 * creates all of them at once (up to `maxRunsPerStatement`): one round trip,
 * one lock on the trigger row and one commit for the lot, instead of one
 * each. A request that finds nothing in flight goes at once, so grouping adds
 * no wait at idle; under load, groups grow with the statement's own latency.
 *
 * Each request still gets its own answer: its run (placed, handed to a
 * waiting poll or queued, as `RunsRepo.createMany` and
 * `Supervisor.creatingMany` decide), the earlier run for a repeated
 * Idempotency-Key, or undefined when the trigger is gone.
 */
export class RunRequests extends Effect.Service<RunRequests>()("Runs/RunRequests", {
  scoped: Effect.gen(function*() {
    const repo = yield* RunsRepo
    const supervisor = yield* Supervisor
    const groups = new Map<string, Group>()
    // Statements run in fibers of this service (interrupted when its scope
    // closes), not in the request that happened to start the group: the
    // statement serves every request in it.
    const fibers = yield* FiberSet.make()
    const built = yield* Effect.runtime<never>()
    const fork = Runtime.runFork(Runtime.make({
      context: built.context,
      fiberRefs: built.fiberRefs,
      runtimeFlags: Runtime.defaultRuntime.runtimeFlags
    }))

    /** Statements for the group's queue, one after another, until it is empty. */
    const drain = (key: string, group: Group): Effect.Effect<void> =>
      Effect.suspend(() => {
        const batch = group.queue.splice(0, maxRunsPerStatement)
        if (batch.length === 0) {
          groups.delete(key)
          return Effect.void
        }
        return supervisor.creatingMany(group.environmentId, (placement) =>
          repo.createMany(group.triggerId, batch.map((pending) => pending.request), {
            environmentId: group.environmentId,
            placement
          })).pipe(
            Effect.exit,
            Effect.flatMap((exit) => {
              batch.forEach((pending, i) => pending.resume(Exit.isSuccess(exit) ? Effect.succeed(exit.value[i]) : Effect.failCause(exit.cause)))
              return drain(key, group)
            }),
            // Shutting down: whoever still waits is told, not left hanging.
            Effect.onInterrupt(() =>
              Effect.sync(() => {
                groups.delete(key)
                for (const pending of [...batch, ...group.queue.splice(0)]) pending.resume(Effect.interrupt)
              })
            )
          )
      })

    /**
     * A new run of the trigger (of `environmentId`; undefined when there is
     * no such live trigger there), placed where the scheduler's rules allow.
     */
    const request = (triggerId: string, environmentId: string, request: CreateRequest): Effect.Effect<Created | undefined> =>
      Effect.async<Created | undefined>((resume) => {
        const key = `${triggerId}/${environmentId}`
        const pending: Pending = { request, resume }
        const waiting = groups.get(key)
        if (waiting !== undefined) {
          waiting.queue.push(pending)
          // A caller that leaves before its statement starts is dropped from
          // it; once the statement runs, the run is created regardless (as
          // with any request whose client hangs up mid-statement).
          return Effect.sync(() => {
            const at = waiting.queue.indexOf(pending)
            if (at >= 0) waiting.queue.splice(at, 1)
          })
        }
        const group: Group = { triggerId, environmentId, queue: [pending] }
        groups.set(key, group)
        FiberSet.unsafeAdd(fibers, fork(drain(key, group)))
      })

    return { request } as const
  })
}) {}
