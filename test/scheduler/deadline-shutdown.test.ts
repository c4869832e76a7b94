import * as SqlClient from "@effect/sql/SqlClient"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Reactivity from "@effect/experimental/Reactivity"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Logger from "effect/Logger"
import * as Scope from "effect/Scope"
import type { Assignment } from "../../src/Scheduler/Dispatch.js"
import { makeDeadlineFibers } from "../../src/Scheduler/Supervision.js"
import type { Transitions } from "../../src/Scheduler/Transitions.js"

/**
 * Shutdown while supervising fibers are mid-check: their reads are cut off
 * when the scope closes. That is the service stopping, not supervision
 * failing: nothing may be logged as a failure.
 */

// A database that takes every statement and never answers: each woken fiber stays in its read.
const unanswering = SqlClient.make({
  acquirer: Effect.succeed({
    execute: () => Effect.never,
    executeRaw: () => Effect.never,
    executeValues: () => Effect.never,
    executeUnprepared: () => Effect.never,
    executeStream: () => Effect.die("not used")
  } as any),
  compiler: PgClient.makeCompiler(),
  spanAttributes: []
}).pipe(Effect.provide(Reactivity.layer))

describe("deadline fibers at shutdown", () => {
  it.live("fibers interrupted mid-read when the scope closes log no 'supervision failed'", () =>
    Effect.gen(function*() {
      const logged: Array<string> = []
      const logger = Logger.make(({ logLevel, message }) => {
        logged.push(`${logLevel.label} ${Array.isArray(message) ? message.join(" ") : String(message)}`)
      })
      const sql = yield* unanswering
      const scope = yield* Scope.make()
      const fibers = yield* makeDeadlineFibers({
        sql,
        assignment: {} as Assignment,
        transitions: {} as Transitions,
        requeued: () => Effect.void
      }).pipe(Scope.extend(scope), Effect.provide(Logger.replace(Logger.defaultLogger, logger)))
      // Overdue: each fiber wakes at once and waits on its read.
      for (let i = 0; i < 5; i++) yield* fibers.watch(`00000000-0000-7000-8000-00000000000${i}`, 0)
      yield* Effect.sleep("200 millis")
      expect(yield* fibers.size, logged.join("\n")).toBe(5)
      yield* Scope.close(scope, Exit.void)
      yield* Effect.sleep("100 millis")
      expect(logged.filter((line) => line.includes("supervision failed"))).toEqual([])
      expect(yield* fibers.size).toBe(0)
    }))
})
