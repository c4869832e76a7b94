import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiError from "@effect/platform/HttpApiError"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Api } from "../Contract/Api.js"
import { accessCases, answerAccess } from "../Tenancy/TenancyWireErrors.js"
import { answering } from "../Http/DomainErrors.js"
import { BadRequest, NotFound, type ValidationError } from "../Contract/Domain/ApiErrors.js"
import { decodeCursor, defaultLimit, page } from "../Db/Pagination.js"
import { Policy } from "../Tenancy/Policy.js"
import { ReplayRequest, RunRequest, type RunListParams } from "../Contract/RunsApi.js"
import { RunReplays } from "./Replays.js"
import { Run, toRun } from "../Contract/Domain/Run.js"
import { RunCancellation } from "./Cancellation.js"
import { availableAtOf, RunReschedule } from "./Delays.js"
import { answerRejections } from "./RunWireErrors.js"
import { RunHistory } from "./RunHistory.js"
import { type RequestedBody, RunRequests } from "./RunRequests.js"
import { answerTriggerErrors } from "../Triggers/TriggerWireErrors.js"
import { type RunFilter, RunsRepo } from "./RunsRepo.js"
import { hotSpan } from "../Config/Tracing.js"
import type { Created } from "../RunStore/RunStore.js"

const encodeRun = Schema.encode(Run)
const HttpApiDecodeError = HttpApiError.HttpApiDecodeError

/**
 * The body is optional, which the builder's JSON decoding cannot express
 * (an empty body is malformed JSON to it), so this endpoint reads it here.
 */
const readRunRequest = (text: string): Effect.Effect<RequestedBody, BadRequest | HttpApiError.HttpApiDecodeError | ValidationError> =>
  Effect.gen(function*() {
    if (text.trim() === "") return { input: undefined, concurrencyKey: undefined }
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      return yield* Effect.fail(new BadRequest({ error: "malformed request body: expected valid JSON" }))
    }
    const request = yield* Schema.decodeUnknown(RunRequest)(json).pipe(
      Effect.catchTag("ParseError", HttpApiDecodeError.refailParseError)
    )
    return {
      input: "input" in request ? { value: request.input } : undefined,
      tags: request.tags,
      concurrencyKey: request.concurrencyKey,
      availableAt: yield* availableAtOf(request),
      priority: request.priority,
      ttlSeconds: request.ttlSeconds
    }
  })

/** `POST /runs/{id}/replay`: the body is optional as a run request's is; no input replays the run's own. */
const readReplayRequest = (text: string): Effect.Effect<{ readonly input: RequestedBody["input"] }, BadRequest | HttpApiError.HttpApiDecodeError> =>
  Effect.gen(function*() {
    if (text.trim() === "") return { input: undefined }
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      return yield* Effect.fail(new BadRequest({ error: "malformed request body: expected valid JSON" }))
    }
    const request = yield* Schema.decodeUnknown(ReplayRequest)(json).pipe(
      Effect.catchTag("ParseError", HttpApiDecodeError.refailParseError)
    )
    return { input: "input" in request ? { value: request.input } : undefined }
  })

/**
 * The request's body text. Most run requests carry no body; reading an
 * empty stream still cost a third of a millisecond. Without a length or a
 * chunked encoding, an HTTP/1.1 request has no body (RFC 9112 §6.3).
 */
const bodyText = (request: { readonly headers: Readonly<Record<string, string | undefined>>; readonly text: Effect.Effect<string, unknown> }) => {
  const raw = request.headers
  const bodyless = raw["transfer-encoding"] === undefined && (raw["content-length"] === undefined || raw["content-length"] === "0")
  return bodyless ? Effect.succeed("") : Effect.orDie(request.text)
}

/** A replay's refusals: the run's (not there for the caller), the trigger's (deleted) and the run request's. */
const answerReplay = answering({
  ...accessCases,
  TriggerNotFound: () => NotFound.of("trigger"),
  RunNotFound: () => NotFound.of("run")
})

const respond = (created: Created) =>
  Effect.gen(function*() {
    // Assigned or not, the answer shows the run as it was requested (queued).
    yield* Effect.annotateCurrentSpan("runId", created.run.id)
    const encoded = yield* Effect.orDie(encodeRun(toRun(created.run)))
    return HttpServerResponse.unsafeJson(encoded, { status: created.created ? 201 : 200 })
  })

const listFilter = (params: typeof RunListParams.Type, environmentId: string) =>
  Effect.map(decodeCursor(params.cursor), (before): Omit<RunFilter, "triggerId" | "environmentId"> => ({
    status: params.status,
    from: params.from,
    to: params.to,
    workerId: params.workerId,
    tag: params.tag === undefined ? undefined : { tag: params.tag, environmentId },
    before,
    limit: params.limit ?? defaultLimit
  }))

export const RunsLive = HttpApiBuilder.group(Api, "runs", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* RunsRepo
    const policy = yield* Policy
    const runRequests = yield* RunRequests
    const cancellation = yield* RunCancellation
    const rescheduling = yield* RunReschedule
    const history = yield* RunHistory
    const replays = yield* RunReplays

    // A run of an environment the caller cannot see is not found, as one that does not exist.
    const visibleRun = (id: string) =>
      Effect.gen(function*() {
        const run = yield* history.find(id)
        if (run === undefined) return yield* Effect.fail(NotFound.of("run"))
        yield* answerAccess(policy.requireRole(run.environment_id, "viewer", "run"))
        return run
      })

    const liveTrigger = (id: string) =>
      Effect.flatMap(
        repo.findTrigger(id),
        (trigger) => trigger === undefined ? Effect.fail(NotFound.of("trigger")) : Effect.succeed(trigger)
      )

    return handlers
      .handleRaw("requestRun", ({ headers, path, request }) =>
        Effect.gen(function*() {
          const text = yield* bodyText(request)
          // The access check is the service's (`RunRequests.request`), as for every front door.
          const created = yield* answerTriggerErrors(
            runRequests.request(path.id, readRunRequest(text), { idempotencyKey: headers["idempotency-key"] })
          )
          return yield* respond(created)
        }).pipe(hotSpan("Runs.request")))
      .handleRaw("replayRun", ({ headers, path, request }) =>
        Effect.gen(function*() {
          const text = yield* bodyText(request)
          // Who may is the service's (`RunReplays.replay`, then the run request's); the body is read after.
          const created = yield* answerReplay(
            replays.replay(path.id, readReplayRequest(text), { idempotencyKey: headers["idempotency-key"] })
          )
          return yield* respond(created)
        }))
      .handle("listTriggerRuns", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const trigger = yield* liveTrigger(path.id)
          yield* answerAccess(policy.requireRole(trigger.environment_id, "viewer", "trigger"))
          const filter = yield* listFilter(urlParams, trigger.environment_id)
          const rows = yield* repo.list({ ...filter, triggerId: trigger.id })
          return page(rows.map(toRun), filter.limit)
        }))
      .handle("listEnvironmentRuns", ({ path, urlParams }) =>
        Effect.gen(function*() {
          yield* answerAccess(policy.requireRole(path.envId, "viewer"))
          const filter = yield* listFilter(urlParams, path.envId)
          const rows = yield* repo.list({ ...filter, environmentId: path.envId })
          return page(rows.map(toRun), filter.limit)
        }))
      .handle("cancelRun", ({ path }) => Effect.map(answerRejections(cancellation.cancel(path.id)), toRun))
      .handle("rescheduleRun", ({ path, payload }) => Effect.map(answerRejections(rescheduling.reschedule(path.id, payload)), toRun))
      .handle("getRun", ({ path }) =>
        Effect.gen(function*() {
          const run = yield* visibleRun(path.id)
          return yield* history.detail(run)
        }))
      .handle("runEvents", ({ path }) =>
        Effect.gen(function*() {
          const run = yield* visibleRun(path.id)
          return { items: yield* history.events(run.id) }
        }))
  }))
