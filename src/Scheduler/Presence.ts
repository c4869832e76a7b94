import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import { nowIso } from "../Domain/Time.js"
import { Wakeups } from "./Wakeups.js"

/**
 * Keeps the workers whose polls wait on this instance "seen": a long poll
 * records the worker's contact when it arrives, and may then wait 30 s. Every
 * two seconds one statement touches every waiting worker (at most once a
 * second each, as request contact is), so on every instance a waiting worker
 * reads as active (`Tuning.activeWorkerSeconds`) and is preferred for
 * new runs over a worker that registered and stopped polling.
 */
export class Presence extends Effect.Service<Presence>()("Scheduler/Presence", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const wakeups = yield* Wakeups

    const touch = Effect.suspend(() => {
      const ids = wakeups.waitingWorkers()
      if (ids.length === 0) return Effect.void
      return Effect.flatMap(nowIso, (now) =>
        sql`
        UPDATE workers SET last_seen_at = ${now}::timestamptz
        WHERE id = ANY(${ids}::uuid[]) AND last_seen_at < ${now}::timestamptz - interval '1 second'`.pipe(Effect.asVoid))
    })

    yield* touch.pipe(
      Effect.catchAllCause((cause) => Effect.logWarning("waiting workers' presence not recorded; trying again", cause)),
      Effect.repeat(Schedule.spaced("2 seconds")),
      Effect.interruptible,
      Effect.forkScoped
    )
    return {} as const
  })
}) {}
