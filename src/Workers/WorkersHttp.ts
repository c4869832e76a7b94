import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { Api } from "../Contract/Api.js"
import { WorkerTokenTrust, workerTokenTrustMillis } from "../Auth/WorkerTokenTrust.js"
import { Revocation } from "../Scheduler/Supervision.js"
import { Workers } from "./Workers.js"
import { answerWorkerErrors as answer } from "./WorkerWireErrors.js"

export const WorkersLive = HttpApiBuilder.group(Api, "workers", (handlers) =>
  Effect.gen(function*() {
    const workers = yield* Workers
    const revocation = yield* Revocation
    const trust = yield* WorkerTokenTrust
    return handlers
      .handle("register", ({ payload }) => answer(workers.register(payload.registrationToken, payload.label)))
      .handle("listEnvironment", ({ path, urlParams }) => answer(workers.listEnvironment(path.envId, urlParams)))
      .handle("listWorkspace", ({ path, urlParams }) => answer(workers.listWorkspace(path.wsId, urlParams)))
      .handle("updateWorker", ({ path, payload }) => answer(workers.update(path.wsId, path.workerId, payload)))
      .handle("revokeWorker", ({ path }) =>
        Effect.gen(function*() {
          const worker = yield* answer(workers.revoke(path.wsId, path.workerId))
          const committedAt = yield* Clock.currentTimeMillis
          trust.forgetWorker(worker.id)
          yield* revocation.workerRevoked(worker.id)
          // Every instance forgot the token when the revocation's NOTIFY reached
          // it. Should one not have heard it yet, its trust in the token (at
          // most a second old) has run out before this answer: after the 204
          // no instance accepts the token, whatever the notification's delay.
          const left = committedAt + workerTokenTrustMillis - (yield* Clock.currentTimeMillis)
          if (left > 0) yield* Effect.sleep(left)
        }))
  }))
