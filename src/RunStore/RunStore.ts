import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { Tuning } from "../Config/Tuning.js"
import * as Assignment from "./Assignment.js"
import * as CancelRequests from "./CancelRequests.js"
import * as Creation from "./Creation.js"
import * as Endings from "./Endings.js"
import * as Releases from "./Releases.js"
import * as SetClauses from "./SetClauses.js"
import * as Steps from "./Steps.js"
import * as Terminal from "./Terminal.js"

/**
 * Every statement that creates or moves a run, each a function that runs
 * it and answers its rows. Every transition is one conditional UPDATE ... RETURNING: the row
 * count decides, so a transition from the wrong state changes nothing, and
 * with two instances each happens exactly once. A deadline that has passed
 * counts as a wrong state: the supervisor is about to time the run out, and a
 * late heartbeat must not resurrect it. What follows a statement (the live
 * feed, the terminal-run stream, wake-ups, metrics) is the scheduler's.
 */
export class RunStore extends Effect.Service<RunStore>()("RunStore", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const tuning = yield* Tuning
    const clauses = SetClauses.make(sql, tuning.cancelGraceSeconds)
    const terminal = Terminal.make(sql)
    return {
      ...Creation.make(sql),
      ...Assignment.make(sql, tuning),
      ...Releases.make(sql, tuning),
      ...Steps.make(sql, clauses),
      ...Endings.make(sql, clauses, terminal),
      ...CancelRequests.make(sql, clauses, terminal)
    } as const
  })
}) {}
