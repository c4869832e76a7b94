import * as SqlClient from "@effect/sql/SqlClient"
import { expect, layer as withLayer } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import { layer } from "../support/TestApp.js"
import { appendLogs, readAll, runningRun } from "./support.js"

const lines = (n: number) => Array.from({ length: n }, (_, i) => ({ stream: "stdout", text: `line ${i + 1}` }))

/** A transaction of the run's row (as a transition holds it) on a connection of its own, until `release`; `end` makes it the run's end. */
const holdRun = (runId: string, end: boolean) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const held = yield* Deferred.make<void>()
    const release = yield* Deferred.make<void>()
    const fiber = yield* Effect.fork(sql.withTransaction(Effect.gen(function*() {
      yield* sql`SELECT id FROM runs WHERE id = ${runId} FOR UPDATE`
      yield* Deferred.succeed(held, undefined)
      yield* Deferred.await(release)
      if (end) yield* sql`UPDATE runs SET status = 'succeeded', ended_at = now() WHERE id = ${runId}`
    })).pipe(Effect.orDie))
    yield* Deferred.await(held)
    return { release: Effect.zipRight(Deferred.succeed(release, undefined), Fiber.join(fiber)) }
  })

withLayer(layer(), { excludeTestServices: true })("run logs beside a transition (Postgres)", (it) => {
  it.effect("an append to a run a transition holds waits for it (tried again each round, never refused for it), and is refused if the run ended", () =>
    Effect.gen(function*() {
      const { env, runId, worker } = yield* runningRun
      const other = yield* runningRun
      const hold = yield* holdRun(runId, false)
      const waiting = yield* Effect.fork(appendLogs(worker, runId, { sequence: 1, lines: lines(3) }))
      // Appends to other runs go on meanwhile: the held run is skipped, not waited for.
      expect((yield* appendLogs(other.worker, other.runId, { lines: lines(2) })).body).toEqual({ stored: 2, duplicates: 0, dropped: 0 })
      expect(Option.isNone(yield* Fiber.poll(waiting))).toBe(true)
      yield* hold.release
      expect((yield* Fiber.join(waiting)).body).toEqual({ stored: 3, duplicates: 0, dropped: 0 })

      const ending = yield* holdRun(runId, true)
      const late = yield* Effect.fork(appendLogs(worker, runId, { sequence: 4, lines: lines(2) }))
      yield* ending.release
      const refused = yield* Fiber.join(late)
      expect(refused.status).toBe(409)
      expect(refused.body.error).toMatch(/run is succeeded/)
      const { lines: stored } = yield* readAll(runId, env.user.cookie)
      expect(stored.map((line) => line.text)).toEqual(["line 1", "line 2", "line 3"])
    }))
})
