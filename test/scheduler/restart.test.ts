import * as SqlClient from "@effect/sql/SqlClient"
import { expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { createTrigger, registerWorker, setupEnvironment } from "../support/Fixtures.js"
import { call } from "../support/TestApp.js"
import { databaseLocation, openDatabase, startInstance } from "./instances.js"

const realPause = (ms: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))

const statuses = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  return yield* sql<{
    id: string
    status: string
    fault_class: string | null
    attempt: number
    retry_of_run_id: string | null
    ended_at: Date | null
  }>`
    SELECT id, status, fault_class, attempt, retry_of_run_id, ended_at FROM runs ORDER BY id`
}).pipe(Effect.orDie)

// Real time is the point here: the app is stopped and started again, and the
// deadlines stored in the database must still fire.
it.live("restart: stop the app mid-run, start it again; overdue deadlines fire at once, pending ones on time, nothing stuck", () =>
  Effect.gen(function*() {
    const location = yield* databaseLocation
    let db = yield* openDatabase(location)
    const first = yield* startInstance(db.context)
    const ctx1 = Context.merge(db.context, first.context)

    const { overdue, pending, worker } = yield* Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const worker = yield* registerWorker(env)
      const trigger = yield* createTrigger(env, { heartbeatTimeoutSeconds: 5, maxRetries: 1 })
      const ids: Array<string> = []
      for (let i = 0; i < 2; i++) {
        const res = yield* call("POST", `/api/v1/triggers/${trigger.id}/run`, { cookie: env.user.cookie })
        ids.push(res.body.id)
      }
      const claimed = yield* call("GET", `/api/v1/workers/${worker.workerId}/poll?claim=true&max=2`, { bearer: worker.token })
      expect(claimed.body.runs.map((r: any) => r.status)).toEqual(["claimed", "claimed"])
      const started = yield* call("POST", `/api/v1/workers/${worker.workerId}/runs/${ids[0]}/start`, { bearer: worker.token })
      expect(started.status).toBe(200)
      return { overdue: ids[0]!, pending: ids[1]!, worker }
    }).pipe(Effect.provide(ctx1))

    yield* first.stop
    // The first run's heartbeat deadline is put before the stop: due while the
    // service still ran, so it gets no restart grace (see ServicePresence) and
    // fires at once. The second's lies ahead (far enough that a slow restart
    // still comes before it).
    const pendingDeadline = yield* Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`UPDATE runs SET deadline_at = now() - interval '1 second' WHERE id = ${overdue}`
      const [row] = yield* sql<{ deadline_at: Date }>`
        UPDATE runs SET deadline_at = now() + interval '10 seconds' WHERE id = ${pending} RETURNING deadline_at`
      return row!.deadline_at
    }).pipe(Effect.provide(db.context), Effect.orDie)
    yield* db.close

    const restartedAt = Date.now()
    db = yield* openDatabase(location)
    const second = yield* startInstance(db.context)
    const ctx2 = Context.merge(db.context, second.context)
    yield* Effect.gen(function*() {
      let rows = yield* statuses
      while (rows.find((r) => r.id === overdue)!.status !== "timed_out" && Date.now() - restartedAt < 15_000) {
        yield* realPause(50)
        rows = yield* statuses
      }
      // Overdue: handled by startup recovery, before the second run's deadline (database clock).
      const overdueRow = rows.find((r) => r.id === overdue)!
      expect(overdueRow).toMatchObject({ status: "timed_out", fault_class: "infra" })
      expect(overdueRow.ended_at!.getTime()).toBeLessThan(pendingDeadline.getTime())
      expect(rows.find((r) => r.id === pending)!.status).toBe("claimed")

      while (rows.find((r) => r.id === pending)!.status !== "timed_out" && Date.now() - restartedAt < 30_000) {
        yield* realPause(100)
        rows = yield* statuses
      }
      // Pending: on time, not before its deadline.
      const pendingRow = rows.find((r) => r.id === pending)!
      expect(pendingRow).toMatchObject({ status: "timed_out", fault_class: "infra" })
      expect(pendingRow.ended_at!.getTime()).toBeGreaterThanOrEqual(pendingDeadline.getTime())

      // Each timed-out run got its one retry, assigned again: nothing is left stuck.
      // The retry is written with the timeout and placed by the assignment
      // pass that follows it, so the last one may still be on its way.
      const assignedRetries = (rs: typeof rows) => rs.filter((r) => r.retry_of_run_id !== null && r.status === "assigned")
      while (assignedRetries(rows).length < 2 && Date.now() - restartedAt < 30_000) {
        yield* realPause(50)
        rows = yield* statuses
      }
      const retries = rows.filter((r) => r.retry_of_run_id !== null)
      expect(retries.map((r) => r.status)).toEqual(["assigned", "assigned"])
      expect(retries.map((r) => r.retry_of_run_id).sort()).toEqual([overdue, pending].sort())
      expect(retries.every((r) => r.attempt === 2)).toBe(true)
      const polled = yield* call("GET", `/api/v1/workers/${worker.workerId}/poll?claim=true&max=10`, { bearer: worker.token })
      expect(polled.body.runs.map((r: any) => r.id).sort()).toEqual(retries.map((r) => r.id).sort())
      for (const r of polled.body.runs) {
        const done = yield* call("POST", `/api/v1/workers/${worker.workerId}/runs/${r.id}/complete`, {
          bearer: worker.token,
          body: { status: "succeeded" }
        })
        expect(done.status).toBe(200)
      }
      const final = yield* statuses
      expect(final.map((r) => r.status).sort()).toEqual(["succeeded", "succeeded", "timed_out", "timed_out"])
    }).pipe(Effect.provide(ctx2))
    yield* second.stop
    yield* db.close
  }).pipe(Effect.scoped), 60_000)
