import * as Cause from "effect/Cause"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import type { PipelineClient } from "../Client.js"
import { ValidationError } from "../Contract/Domain/ApiErrors.js"
import { fatalUnauthorized, WorkerUnauthorized } from "./Errors.js"
import { describe, retryTransient } from "./Transient.js"

import type { CompletePayload } from "./Calls.js"

export type { CompletePayload }

/**
 * Completes runs, coalescing: the completes that arrive while one call is in
 * flight go out together in the next, as one `POST /workers/{id}/runs/complete`
 * (at most 100 per call). A lone complete is sent at once, so nothing waits
 * for a batch to fill; under load, each call carries what finished meanwhile.
 */
export interface Completions {
  /** True when the service recorded it; false when it refused it (the run is no longer ours) or never answered. */
  readonly complete: (runId: string, payload: CompletePayload) => Effect.Effect<boolean, WorkerUnauthorized>
}

interface Pending {
  readonly runId: string
  readonly payload: CompletePayload
  readonly resume: (effect: Effect.Effect<boolean, WorkerUnauthorized>) => void
}

/** The largest batch the service takes. */
export const maxBatch = 100

/**
 * The sender runs in the enclosing scope: create it before anything whose
 * shutdown still completes runs, so it stops after them.
 * `single` completes one run on its own: when the service refuses a whole
 * batch as invalid (one handler's bad `costUsd`), each run is sent alone, so
 * only the bad one is refused.
 */
export const make = (
  client: PipelineClient,
  workerId: string,
  retries: Schedule.Schedule<unknown, unknown>,
  single: (runId: string, payload: CompletePayload) => Effect.Effect<boolean, WorkerUnauthorized>
): Effect.Effect<Completions, never, Scope.Scope> =>
  Effect.gen(function*() {
    const queue = yield* Queue.unbounded<Pending>()

    const send = (batch: ReadonlyArray<Pending>) =>
      retryTransient(
        client.workerProtocol.completeMany({
          path: { id: workerId },
          payload: { runs: batch.map((item) => ({ runId: item.runId, ...item.payload })) }
        }).pipe(Effect.timeout("30 seconds")),
        "completing runs",
        retries
      ).pipe(fatalUnauthorized)

    const settle = (batch: ReadonlyArray<Pending>, exit: Exit.Exit<Effect.Effect.Success<ReturnType<typeof send>>, Effect.Effect.Error<ReturnType<typeof send>>>) => {
      if (Exit.isSuccess(exit)) {
        const refused = new Map(exit.value.rejected.map((r) => [r.runId, r.error]))
        for (const item of batch) {
          const why = refused.get(item.runId)
          item.resume(
            why === undefined
              ? Effect.succeed(true)
              : Effect.as(Effect.logWarning("completing the run: refused").pipe(Effect.annotateLogs({ runId: item.runId, reason: why })), false)
          )
        }
        return
      }
      const error = Cause.failureOption(exit.cause)
      for (const item of batch) {
        if (Option.isSome(error) && error.value instanceof WorkerUnauthorized) item.resume(Effect.fail(error.value))
        else if (Option.isSome(error) && error.value instanceof ValidationError) item.resume(single(item.runId, item.payload))
        else {
          const reason = Option.isSome(error) ? describe(error.value) : Cause.pretty(exit.cause)
          item.resume(Effect.as(Effect.logWarning("completing the run: no answer").pipe(Effect.annotateLogs({ runId: item.runId, reason })), false))
        }
      }
    }

    yield* Effect.gen(function*() {
      const batch = Chunk.toReadonlyArray(yield* Queue.takeBetween(queue, 1, maxBatch))
      settle(batch, yield* Effect.exit(send(batch)))
    }).pipe(Effect.forever, Effect.forkScoped)

    return {
      complete: (runId, payload) =>
        Effect.flatten(Effect.async<Effect.Effect<boolean, WorkerUnauthorized>>((resume) => {
          queue.unsafeOffer({ runId, payload, resume: (effect) => resume(Effect.succeed(effect)) })
        }))
    }
  })
