import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import { Api } from "../Contract/Api.js"
import { CurrentWorker } from "../Contract/Security.js"
import { NotFound, Unauthorized, ValidationError } from "../Contract/Domain/ApiErrors.js"
import { rejectedRun, rejectionError } from "../Runs/RunWireErrors.js"
import { type PolledRow, toRun } from "../Contract/Domain/Run.js"
import { WorkersRepo } from "../Workers/WorkersRepo.js"
import * as Option from "effect/Option"
import { RunNotFound } from "../Scheduler/RunRejection.js"
import { WorkerProtocol } from "./WorkerProtocol.js"
import { isUuid } from "../Contract/Domain/Uuids.js"
import { enabled as channelEnabled } from "../WorkerChannel/ChannelConfig.js"
import { channelHeader, channelPath } from "../Contract/WorkerChannelRpcs.js"

export const toPolled = (row: PolledRow) => ({
  ...toRun(row),
  trigger: {
    id: row.trigger_id,
    name: row.trigger_name,
    input: row.trigger_input ?? null,
    command: row.trigger_command ?? null,
    timeoutSeconds: row.timeout_seconds,
    heartbeatTimeoutSeconds: row.heartbeat_timeout_seconds
  }
})

// "none" means "no fault": it only describes a success.
const faultlessFailure = "a failed run's faultClass is infra or client"
const isFaultlessFailure = (item: { readonly status: string; readonly faultClass?: string | undefined }) =>
  item.status === "failed" && item.faultClass === "none"

/** `{id}` must be the token's own worker; anything else is not found (never 403: no existence leak). */
const ownWorker = (id: string) =>
  Effect.flatMap(CurrentWorker, (worker) =>
    worker.workerId === id.toLowerCase() ? Effect.succeed(worker) : Effect.fail(NotFound.of("worker")))

const ownRun = (path: { readonly id: string; readonly runId: string }) =>
  Effect.flatMap(ownWorker(path.id), (worker) =>
    // The request's span (when tracing) names the run, so a run's worker calls can be found by its id.
    Effect.as(Effect.annotateCurrentSpan("runId", path.runId), { workerId: worker.workerId, runId: path.runId }))

export const WorkerProtocolLive = HttpApiBuilder.group(Api, "workerProtocol", (handlers) =>
  Effect.gen(function*() {
    const protocol = yield* WorkerProtocol
    const workers = yield* WorkersRepo
    // The worker SDK looks for this header to use the streaming channel (additive: the body is unchanged).
    const advertise = (yield* channelEnabled)
      ? HttpApp.appendPreResponseHandler((_request, response) => Effect.succeed(HttpServerResponse.setHeader(response, channelHeader, channelPath)))
      : Effect.void
    return handlers
      .handle("me", () =>
        Effect.gen(function*() {
          yield* advertise
          const worker = yield* CurrentWorker
          const found = yield* workers.findInWorkspace(worker.workspaceId, worker.workerId)
          // Revoked after the token was verified (inside another instance's trust window, before its NOTIFY
          // arrived): refused as the token itself now is, not "not found".
          return yield* Option.match(found, {
            onNone: () => Effect.fail(new Unauthorized({ error: "invalid worker token" })),
            onSome: Effect.succeed
          })
        }))
      .handle("poll", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const worker = yield* ownWorker(path.id)
          const claim = urlParams.claim === "true"
          const start = urlParams.start === "true"
          if (start && !claim) return yield* Effect.fail(ValidationError.field("start", "start=true needs claim=true"))
          const answer = yield* protocol.pollAnswer(worker.workerId, worker.environmentId, {
            wait: urlParams.wait ?? 0,
            claim,
            max: urlParams.max ?? 1,
            start
          })
          return { runs: answer.runs.map(toPolled), cancelRequested: answer.cancelRequested }
        }))
      .handle("claim", ({ path }) =>
        Effect.flatMap(ownRun(path), ({ runId, workerId }) => Effect.mapError(protocol.claim(workerId, runId), rejectionError)).pipe(
          Effect.map((row) => ({ run: toRun(row) }))
        ))
      .handle("start", ({ path }) =>
        Effect.flatMap(ownRun(path), ({ runId, workerId }) => Effect.mapError(protocol.start(workerId, runId), rejectionError)).pipe(
          Effect.map((row) => ({ run: toRun(row) }))
        ))
      .handle("heartbeat", ({ path }) =>
        Effect.flatMap(ownRun(path), ({ runId, workerId }) => Effect.mapError(protocol.heartbeat(workerId, runId), rejectionError)).pipe(
          Effect.map((row) => ({ run: toRun(row) }))
        ))
      .handle("complete", ({ path, payload }) =>
        Effect.gen(function*() {
          const { runId, workerId } = yield* ownRun(path)
          if (isFaultlessFailure(payload)) return yield* Effect.fail(ValidationError.field("faultClass", faultlessFailure))
          const terminal = yield* Effect.mapError(protocol.complete(workerId, runId, payload), rejectionError)
          return { run: toRun(terminal.run) }
        }))
      .handle("completeMany", ({ path, payload }) =>
        Effect.gen(function*() {
          const worker = yield* ownWorker(path.id)
          const seen = new Set<string>()
          for (const [i, item] of payload.runs.entries()) {
            const runId = item.runId.toLowerCase()
            if (seen.has(runId)) return yield* Effect.fail(ValidationError.field("runs", `runs[${i}]: run ${item.runId} is named twice`))
            seen.add(runId)
            if (isFaultlessFailure(item)) return yield* Effect.fail(ValidationError.field("runs", `runs[${i}].faultClass: ${faultlessFailure}`))
          }
          // A malformed id is no run of this worker's: 404 without asking the database.
          const malformed = payload.runs.filter((item) => !isUuid(item.runId))
          const wellFormed = payload.runs.flatMap((item) => isUuid(item.runId) ? [{ ...item, runId: item.runId.toLowerCase() }] : [])
          const result = wellFormed.length === 0
            ? { ended: [], rejected: [] }
            : yield* protocol.completeMany(worker.workerId, wellFormed)
          return {
            runs: result.ended.map((terminal) => toRun(terminal.run)),
            rejected: [...result.rejected, ...malformed.map((item) => new RunNotFound({ runId: item.runId }))].map(rejectedRun)
          }
        }))
  }))
