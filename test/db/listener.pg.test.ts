import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import * as PgListener from "../../src/Db/PgListener.js"
import { createDatabase, sleep } from "../support/Process.js"

/**
 * LISTEN over a connection the server drops (a restart, a failover, a
 * terminated backend): the stream must fail, so its service listens again
 * on a fresh connection. It used to go silent instead, and every NOTIFY
 * after the drop was lost (a long-polling worker on another instance was
 * never woken).
 */
describe("LISTEN connection dropped", () => {
  it.scopedLive("the stream fails when its backend is terminated, and listening again receives notifications", () =>
    Effect.gen(function*() {
      const db = yield* Effect.acquireRelease(Effect.promise(createDatabase), (db) => Effect.promise(db.drop))
      const listen = yield* PgListener.make({ connectionString: db.url })
      const first = yield* Stream.runDrain(listen("pts_test")).pipe(Effect.either, Effect.fork)
      yield* Effect.promise(() => sleep(500))
      const name = new URL(db.url).pathname.slice(1)
      const killed = yield* Effect.promise(() =>
        db.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}' AND pid <> pg_backend_pid()`)
      )
      expect(killed.length).toBeGreaterThan(0)
      const ended = yield* Fiber.join(first).pipe(Effect.timeout("10 seconds"))
      expect(ended._tag).toBe("Left")

      const again = yield* Stream.runCollect(Stream.take(listen("pts_test"), 1)).pipe(Effect.fork)
      yield* Effect.promise(() => sleep(500))
      yield* Effect.promise(() => db.query(`SELECT pg_notify('pts_test', 'hello')`))
      const received = yield* Fiber.join(again).pipe(Effect.timeout("10 seconds"))
      expect(Chunk.toReadonlyArray(received)).toEqual(["hello"])
    }), 60_000)
})
