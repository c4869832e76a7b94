import type * as Headers from "@effect/platform/Headers"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Stream from "effect/Stream"
import { Conflict, NotFound, ServiceUnavailable, ValidationError } from "../Contract/Domain/ApiErrors.js"
import { RunLogs } from "../RunLogs/RunLogs.js"
import { rejectedRun } from "../Runs/RunWireErrors.js"
import { isUuid } from "../Contract/Domain/Uuids.js"
import { type RunRow, toRun } from "../Contract/Domain/Run.js"
import { RunNotFound, type RunRejection } from "../Scheduler/RunRejection.js"
import { WorkerProtocol } from "../WorkerProtocol/WorkerProtocol.js"
import { type Channel, Connections } from "./Connections.js"
import { guard, guardStream } from "./Failures.js"
import { Pushes } from "./Pushes.js"
import { WorkerRpcs } from "../Contract/WorkerChannelRpcs.js"

/** The header naming a request's connection; set by the route on the upgrade request (see `Http.ts`). */
export const connectionHeader = "x-pts-channel-connection"

// "none" means "no fault": it only describes a success (as the REST complete says).
const faultlessFailure = "a failed run's faultClass is infra or client"

export const handlers = WorkerRpcs.toLayer(Effect.gen(function*() {
  const protocol = yield* WorkerProtocol
  const connections = yield* Connections
  const pushes = yield* Pushes
  const logs = yield* RunLogs

  // The route opened the connection before the rpc server saw it; gone means it is closing: the worker opens another.
  const channelOf = (headers: Headers.Headers): Effect.Effect<Channel, ServiceUnavailable> => {
    const channel = connections.find(headers[connectionHeader])
    return channel === undefined ? Effect.fail(new ServiceUnavailable({ error: "worker channel closed; open another" })) : Effect.succeed(channel)
  }
  const isValidation = (error: unknown): error is ValidationError => error instanceof ValidationError

  /** One step for each run, grouped per worker into one statement by `WorkerProtocol`; each answered on its own. */
  const each = (
    channel: Channel,
    runIds: ReadonlyArray<string>,
    step: (workerId: string, runId: string) => Effect.Effect<RunRow, RunRejection>
  ) =>
    Effect.map(
      Effect.forEach(runIds, (runId) =>
        // A malformed id is no run of this worker's: 404 without asking the database (as a REST path id).
        isUuid(runId)
          ? Effect.either(step(channel.worker.workerId, runId.toLowerCase()))
          : Effect.succeed(Either.left(new RunNotFound({ runId }))), { concurrency: "unbounded" }),
      (results) => ({
        runs: results.flatMap((result) => Either.isRight(result) ? [toRun(result.right)] : []),
        // As the REST calls answer them (`Runs/RunWireErrors`), under the id the worker sent.
        rejected: results.flatMap((result, i) => Either.isLeft(result) ? [{ ...rejectedRun(result.left), runId: runIds[i]! }] : [])
      })
    )

  return {
    // Every call is guarded (`Failures`): a database failure behind it is a typed, retryable refusal, never a defect.
    Runs: ({ slots }, { headers }) =>
      guardStream(Stream.unwrap(Effect.map(channelOf(headers), (channel) => {
        connections.grant(channel, slots)
        return pushes(channel)
      }))),
    Slots: ({ slots }, { headers }) => guard(Effect.map(channelOf(headers), (channel) => connections.grant(channel, slots))),
    Start: ({ runIds }, { headers }) => guard(Effect.flatMap(channelOf(headers), (channel) => each(channel, runIds, protocol.start))),
    Heartbeat: ({ runIds }, { headers }) => guard(Effect.flatMap(channelOf(headers), (channel) => each(channel, runIds, protocol.heartbeat))),
    Logs: ({ runId, ...payload }, { headers }) =>
      guard(
        Effect.flatMap(channelOf(headers), (channel) =>
          // A malformed id is no run of this worker's (as a REST path id).
          isUuid(runId) ? logs.append(channel.worker.workerId, runId.toLowerCase(), payload) : Effect.fail(NotFound.of("run"))),
        (error): error is NotFound | Conflict => error instanceof NotFound || error instanceof Conflict
      ),
    Complete: ({ runs, slots }, { headers }) =>
      guard(Effect.gen(function*() {
        const channel = yield* channelOf(headers)
        const seen = new Set<string>()
        for (const [i, item] of runs.entries()) {
          const runId = item.runId.toLowerCase()
          if (seen.has(runId)) return yield* Effect.fail(ValidationError.field("runs", `runs[${i}]: run ${item.runId} is named twice`))
          seen.add(runId)
          if (item.status === "failed" && item.faultClass === "none") {
            return yield* Effect.fail(ValidationError.field("runs", `runs[${i}].faultClass: ${faultlessFailure}`))
          }
        }
        const malformed = runs.filter((item) => !isUuid(item.runId))
        const wellFormed = runs.flatMap((item) => isUuid(item.runId) ? [{ ...item, runId: item.runId.toLowerCase() }] : [])
        const result = wellFormed.length === 0 ? { ended: [], rejected: [] } : yield* protocol.completeMany(channel.worker.workerId, wellFormed)
        // Granted only once answered: a call that failed is sent again, with its slots.
        if (slots !== undefined && slots > 0) connections.grant(channel, slots)
        return {
          runs: result.ended.map((terminal) => toRun(terminal.run)),
          rejected: [...result.rejected, ...malformed.map((item) => new RunNotFound({ runId: item.runId }))].map(rejectedRun),
          ...(slots === undefined ? {} : { slotsGranted: slots })
        }
      }), isValidation)
  }
}))
