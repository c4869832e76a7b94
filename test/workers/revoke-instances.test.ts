import { expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import { registerWorker, setupEnvironment } from "../support/Fixtures.js"
import { call } from "../support/TestApp.js"
import { usingPostgres } from "../support/TestDatabase.js"
import { databaseLocation, openDatabase, startInstance } from "../scheduler/instances.js"

// Two app instances on one database, each with its own trust cache of worker
// tokens (a verified token is trusted for 1 s). Under the test clock that
// window never ends, so a 401 on the other instance can only come from the
// revocation's NOTIFY. On Postgres each instance has its own connection pool
// (two processes' setup); embedded, both share the one PGlite session.

const realPause = (ms: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))

it.scoped("a token revoked on one instance is refused by the other inside its trust window, through the revocation's NOTIFY", () =>
  Effect.gen(function*() {
    yield* TestClock.setTime(Date.now())
    const location = yield* databaseLocation
    const dbA = yield* openDatabase(location)
    const dbB = usingPostgres() ? yield* openDatabase(location) : dbA
    const a = yield* startInstance(dbA.context)
    const b = yield* startInstance(dbB.context)
    const onA = <X, E, R>(effect: Effect.Effect<X, E, R>) => Effect.provide(effect, Context.merge(dbA.context, a.context))
    const onB = <X, E, R>(effect: Effect.Effect<X, E, R>) => Effect.provide(effect, Context.merge(dbB.context, b.context))

    const { env, worker } = yield* onA(Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const worker = yield* registerWorker(env)
      return { env, worker }
    }))
    const me = call("GET", "/api/v1/workers/me", { bearer: worker.token })
    // B verifies the token and now trusts it (the test clock never ends its window).
    expect((yield* onB(me)).status).toBe(200)
    expect((yield* onB(me)).status).toBe(200)

    // The DELETE answers once a trust window has passed after the commit: on the test clock, when we move it.
    const revoking = yield* Effect.fork(onA(call("DELETE", `/api/v1/workspaces/${env.workspaceId}/workers/${worker.workerId}`, {
      cookie: env.user.cookie
    })))
    // A poll passes on B's trust alone (it reads no worker row), so its 401 is the NOTIFY's doing.
    // (`me` reads the row, and answers 401 as soon as the revocation commits.)
    const poll = call("GET", `/api/v1/workers/${worker.workerId}/poll`, { bearer: worker.token })
    const deadline = Date.now() + 10_000
    let status = 200
    while (status === 200 && Date.now() < deadline) {
      status = (yield* onB(poll)).status
      if (status === 200) yield* realPause(20)
    }
    expect(status).toBe(401)
    expect((yield* onB(me)).status).toBe(401)

    // Move the clock past the window (again, should the DELETE read the clock only after a move).
    for (let i = 0; i < 100 && Option.isNone(yield* Fiber.poll(revoking)); i++) {
      yield* TestClock.adjust("2 seconds")
      yield* realPause(50)
    }
    expect((yield* Fiber.join(revoking)).status).toBe(204)
    expect((yield* onA(me)).status).toBe(401)
    expect((yield* onB(me)).status).toBe(401)
    const listed = yield* onB(call("GET", `/api/v1/environments/${env.environmentId}/workers`, { cookie: env.user.cookie }))
    expect(listed.body.items.map((w: any) => [w.id, w.status])).toEqual([[worker.workerId, "revoked"]])

    yield* b.stop
    yield* a.stop
  }), { timeout: 120_000 })
