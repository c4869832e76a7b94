import * as Effect from "effect/Effect"
import * as Grouped from "../Concurrency/Grouped.js"
import * as Metrics from "../Observability/Metrics.js"
import { Supervisor } from "../Scheduler/Supervisor.js"
import type { Created, CreateRequest } from "../RunStore/Creation.js"

/** The most runs one creating statement inserts. */
export const maxRunsPerStatement = 100

interface Item {
  readonly triggerId: string
  readonly environmentId: string
  readonly request: CreateRequest
}

/**
 * Run requests, committed in groups (`Concurrency/Grouped`). While a
 * trigger's creating statement is in flight, further requests for that
 * trigger wait, and the next statement creates all of them at once (up to
 * `maxRunsPerStatement`): one round trip, one lock on the trigger row and one
 * commit for the lot, instead of one each. A request that finds nothing in
 * flight goes at once, so grouping adds no wait at idle.
 *
 * Each request still gets its own answer: its run (placed, handed to a
 * waiting poll or queued, as `RunStore.createMany` and
 * `Supervisor.createRuns` decide), the earlier run for a repeated
 * Idempotency-Key, or undefined when the trigger is gone.
 */
export class RunRequests extends Effect.Service<RunRequests>()("Runs/RunRequests", {
  scoped: Effect.gen(function*() {
    const supervisor = yield* Supervisor

    const grouped = yield* Grouped.make<Item, Created | undefined, never>({
      max: maxRunsPerStatement,
      run: (_key, items) => {
        const { environmentId, triggerId } = items[0]!
        return supervisor.createRuns(triggerId, items.map((item) => item.request), { environmentId }).pipe(
          Effect.map((created) => {
            // Idempotent replays answer an earlier run: only new runs count as requested.
            Metrics.record.runsRequested(environmentId, created.reduce((n, c) => c?.created === true ? n + 1 : n, 0))
            return created.map((run) => Effect.succeed(run))
          })
        )
      }
    })

    /**
     * A new run of the trigger (of `environmentId`; undefined when there is
     * no such live trigger there), placed where the scheduler's rules allow.
     */
    const request = (triggerId: string, environmentId: string, request: CreateRequest): Effect.Effect<Created | undefined> =>
      grouped(`${triggerId}/${environmentId}`, { triggerId, environmentId, request })

    return { request } as const
  })
}) {}
