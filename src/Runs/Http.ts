import { HttpApiBuilder, HttpApiError, HttpServerResponse } from "@effect/platform"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { Api } from "../Api.js"
import { answerAccess } from "../Http/AccessErrors.js"
import { CurrentActor } from "../Auth/Security.js"
import { BadRequest, NotFound } from "../Domain/Errors.js"
import { roleAtLeast } from "../Domain/Schemas.js"
import { decodeCursor, defaultLimit, page } from "../Domain/Pagination.js"
import { Policy } from "../Tenancy/Policy.js"
import { RunRequest, type RunListParams } from "./Api.js"
import { Run, toRun } from "../Domain/Run.js"
import { RunCancellation } from "./Cancellation.js"
import { answerRejections } from "../Http/RunRejections.js"
import { RunHistory } from "./RunHistory.js"
import { RunRequests } from "./RunRequests.js"
import type { Created } from "../RunStore/Creation.js"
import { type RunFilter, RunsRepo } from "./RunsRepo.js"
import { hotSpan } from "../Config/Tracing.js"

const encodeRun = Schema.encode(Run)
const HttpApiDecodeError = HttpApiError.HttpApiDecodeError

/**
 * The body is optional, which the builder's JSON decoding cannot express
 * (an empty body is malformed JSON to it), so this endpoint reads it here.
 */
const readRunRequest = (text: string) =>
  Effect.gen(function*() {
    if (text.trim() === "") return { input: undefined }
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      return yield* Effect.fail(new BadRequest({ error: "malformed request body: expected valid JSON" }))
    }
    const request = yield* Schema.decodeUnknown(RunRequest)(json).pipe(
      Effect.catchTag("ParseError", HttpApiDecodeError.refailParseError)
    )
    return { input: "input" in request ? { value: request.input } : undefined }
  })

const listFilter = (params: typeof RunListParams.Type) =>
  Effect.map(decodeCursor(params.cursor), (before): Omit<RunFilter, "triggerId" | "environmentId"> => ({
    status: params.status,
    from: params.from,
    to: params.to,
    workerId: params.workerId,
    before,
    limit: params.limit ?? defaultLimit
  }))

export const RunsLive = HttpApiBuilder.group(Api, "runs", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* RunsRepo
    const policy = yield* Policy
    const runRequests = yield* RunRequests
    const cancellation = yield* RunCancellation
    const history = yield* RunHistory

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
          const actor = yield* CurrentActor
          // Most run requests carry no body; reading an empty stream still cost
          // a third of a millisecond. Without a length or a chunked encoding,
          // an HTTP/1.1 request has no body (RFC 9112 §6.3).
          const raw = request.headers
          const bodyless = raw["transfer-encoding"] === undefined &&
            (raw["content-length"] === undefined || raw["content-length"] === "0")
          const text = bodyless ? "" : yield* Effect.orDie(request.text)
          const respond = (created: Created) =>
            Effect.gen(function*() {
              // Assigned or not, the answer shows the run as it was requested (queued).
              yield* Effect.annotateCurrentSpan("runId", created.run.id)
              const encoded = yield* Effect.orDie(encodeRun(toRun(created.run)))
              return HttpServerResponse.unsafeJson(encoded, { status: created.created ? 201 : 200 })
            })
          // The common case, a script's operator key: the key names its
          // environment, so the trigger lookup and the role check are part of
          // the insert. Anything else (no such trigger there, a bad body, a
          // replay) takes the path below, which answers the exact error.
          if (actor._tag === "ApiKey" && roleAtLeast(actor.role, "operator")) {
            const body = yield* Effect.either(readRunRequest(text))
            if (Either.isRight(body)) {
              const created = yield* runRequests.request(path.id, actor.environmentId, {
                input: body.right.input,
                idempotencyKey: headers["idempotency-key"],
                actor
              })
              if (created !== undefined) return yield* respond(created)
            }
          }
          const trigger = yield* liveTrigger(path.id)
          yield* answerAccess(policy.requireRole(trigger.environment_id, "operator", "trigger"))
          const body = yield* readRunRequest(text)
          const created = yield* runRequests.request(trigger.id, trigger.environment_id, {
            input: body.input,
            idempotencyKey: headers["idempotency-key"],
            actor
          })
          if (created === undefined) return yield* Effect.fail(NotFound.of("trigger"))
          return yield* respond(created)
        }).pipe(hotSpan("Runs.request")))
      .handle("listTriggerRuns", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const trigger = yield* liveTrigger(path.id)
          yield* answerAccess(policy.requireRole(trigger.environment_id, "viewer", "trigger"))
          const filter = yield* listFilter(urlParams)
          const rows = yield* repo.list({ ...filter, triggerId: trigger.id })
          return page(rows.map(toRun), filter.limit)
        }))
      .handle("listEnvironmentRuns", ({ path, urlParams }) =>
        Effect.gen(function*() {
          yield* answerAccess(policy.requireRole(path.envId, "viewer"))
          const filter = yield* listFilter(urlParams)
          const rows = yield* repo.list({ ...filter, environmentId: path.envId })
          return page(rows.map(toRun), filter.limit)
        }))
      .handle("cancelRun", ({ path }) => Effect.map(answerRejections(cancellation.cancel(path.id)), toRun))
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
