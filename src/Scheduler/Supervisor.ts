import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { Tuning } from "../Config/Tuning.js"
import { RunStore } from "../RunStore/RunStore.js"
import { Assignment } from "./Assignment.js"
import * as AssignmentPasses from "./AssignmentPasses.js"
import * as DeadlineFibers from "./DeadlineFibers.js"
import { RunFeed } from "./RunFeed.js"
import * as RunCreation from "./RunCreation.js"
import * as Sweep from "./Sweep.js"
import { Transitions } from "./Transitions.js"
import { Wakeups } from "./Wakeups.js"

/**
 * Run supervision on this instance: a fiber per run with a deadline
 * (`DeadlineFibers`), assignment passes that do not pile up
 * (`AssignmentPasses`), new runs dispatched and supervised from their
 * creating statement on (`RunCreation`), and the sweep (`Sweep`). The parts
 * are closures built once here, so the split costs nothing per call.
 */
export class Supervisor extends Effect.Service<Supervisor>()("Scheduler/Supervisor", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const config = yield* Tuning
    const assignment = yield* Assignment
    const transitions = yield* Transitions
    const wakeups = yield* Wakeups
    const feed = yield* RunFeed
    const store = yield* RunStore
    const scope = yield* Effect.scope

    // A run whose claim deadline passed, or a retry, is assigned by a pass (defined next; called only once both exist).
    const deadlines = yield* DeadlineFibers.make({ sql, assignment, transitions, requeued: (environmentId) => assignAndWatch(environmentId) })
    const { release, size, watch, watchAll } = deadlines
    const assignAndWatch = AssignmentPasses.make({ assignment, watchAll, scope })
    const createRuns = RunCreation.make({ config, store, assignment, wakeups, feed, watch, assignAndWatch })
    yield* Sweep.start({ sql, config, assignment, watchAll, assignAndWatch })

    return { watch, watchAll, release, assignAndWatch, createRuns, size } as const
  })
}) {}
