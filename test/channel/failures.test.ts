import * as Headers from "@effect/platform/Headers"
import * as RpcTest from "@effect/rpc/RpcTest"
import { SqlError } from "@effect/sql/SqlError"
import { describe, expect, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { Notifications } from "../../src/Db/Notifications.js"
import { InternalError, ServiceUnavailable } from "../../src/Contract/Domain/ApiErrors.js"
import { Connections } from "../../src/WorkerChannel/Connections.js"
import { connectionHeader, handlers } from "../../src/WorkerChannel/Handlers.js"
import { RunLogs } from "../../src/RunLogs/RunLogs.js"
import { Pushes } from "../../src/WorkerChannel/Pushes.js"
import { WorkerRpcs } from "../../src/Contract/WorkerChannelRpcs.js"
import { WorkerProtocol } from "../../src/WorkerProtocol/WorkerProtocol.js"

/**
 * The channel's handlers over a database that fails: what the worker gets is
 * a typed failure, `ServiceUnavailable` when the database is unreachable (as
 * REST's 503) and `InternalError` for anything else, never a defect (which
 * @effect/rpc sends connection-wide, killing every call in flight, with the
 * service's own error text).
 */

const unreachable = () => new SqlError({
  message: "Failed to acquire connection",
  cause: Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" })
})
const broken = () => new Error("secret internals: relation runs_x does not exist")

// What fails decides the answer: the first step dies with an unreachable database, the second with a bug.
const protocol = Layer.succeed(WorkerProtocol, WorkerProtocol.make({
  start: () => Effect.die(unreachable()),
  heartbeat: () => Effect.die(broken()),
  completeMany: () => Effect.die(unreachable()),
  pollAnswer: () => Effect.die(unreachable()),
  pushLook: () => Effect.die(unreachable()),
  awaitPush: () => Effect.die(unreachable()),
  poll: () => Effect.die(unreachable()),
  claim: () => Effect.die(unreachable()),
  complete: () => Effect.die(unreachable())
}))
// Pushes is a function (see `Pushes`): provided as it is.
const pushes = Layer.succeed(Pushes, ((() => Stream.die(unreachable())) as unknown) as Pushes)
const notifications = Layer.succeed(Notifications, { listen: () => Stream.never } as unknown as Notifications["Type"])
const connections = Connections.Default.pipe(Layer.provide(notifications))
const logs = Layer.succeed(RunLogs, RunLogs.of({
  append: () => Effect.die(unreachable()),
  findRun: () => Effect.die(unreachable()),
  page: () => Effect.die(unreachable()),
  follow: () => Stream.die(unreachable())
}))
const services = handlers.pipe(Layer.provideMerge(Layer.mergeAll(protocol, pushes, connections, logs)))

/** The call's typed failure; a defect (or a success) fails the test. */
const failureOf = <A, E>(call: Effect.Effect<A, E>) =>
  Effect.flatMap(Effect.exit(call), (exit) => {
    if (exit._tag === "Success") return Effect.dieMessage("the call succeeded")
    const failure = Cause.failureOption(exit.cause)
    if (failure._tag === "None") return Effect.dieMessage(`not a typed failure: ${Cause.pretty(exit.cause)}`)
    // Plain data: the failure itself is a proxy (it carries its span), which the matchers walk forever.
    const error = failure.value as { readonly _tag: string; readonly error: string }
    return Effect.succeed({ tag: error._tag, error: error.error, typed: error instanceof ServiceUnavailable || error instanceof InternalError })
  })

const runId = "0190a0b0-0000-7000-8000-000000000001"

describe("worker channel failures", () => {
  it.live("a database failure is a typed refusal; nothing else is a defect or carries internals", () =>
    Effect.gen(function*() {
      const client = yield* RpcTest.makeClient(WorkerRpcs)
      const channel = yield* (yield* Connections).open({ workerId: "w1", environmentId: "e1", workspaceId: "s1" })
      const headers = Headers.fromInput({ [connectionHeader]: channel.key })

      const unavailable = { tag: "ServiceUnavailable", error: "service unavailable", typed: true }
      expect(yield* failureOf(client.Start({ runIds: [runId] }, { headers }))).toEqual(unavailable)
      // Not the database being away: a 500's body, the cause only in the service's log.
      expect(yield* failureOf(client.Heartbeat({ runIds: [runId] }, { headers }))).toEqual({ tag: "InternalError", error: "internal error", typed: true })
      expect(yield* failureOf(client.Complete({ runs: [{ runId, status: "succeeded" }] }, { headers }))).toEqual(unavailable)
      expect(yield* failureOf(client.Logs({ runId, lines: [{ stream: "stdout", text: "x" }] }, { headers }))).toEqual(unavailable)
      expect(yield* failureOf(Stream.runDrain(client.Runs({ slots: 1 }, { headers })))).toEqual(unavailable)
      // A connection the service already closed: a refusal to retry on another, not a defect.
      const closed = yield* failureOf(client.Slots({ slots: 1 }, { headers: Headers.fromInput({ [connectionHeader]: "gone" }) }))
      expect(closed).toEqual({ tag: "ServiceUnavailable", error: "worker channel closed; open another", typed: true })
    }).pipe(Effect.provide(services), Effect.scoped))
})
