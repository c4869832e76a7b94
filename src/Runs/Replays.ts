import * as Effect from "effect/Effect"
import type { CurrentActor } from "../Contract/Security.js"
import type { Created } from "../RunStore/RunStore.js"
import { RunNotFound } from "../Scheduler/RunRejection.js"
import { Policy } from "../Tenancy/Policy.js"
import type { InsufficientRole, NotVisible } from "../Tenancy/TenancyErrors.js"
import { RunHistory } from "./RunHistory.js"
import { type RequestedInput, type RequestRefused, RunRequests } from "./RunRequests.js"

/** What a replay needs of the run it repeats. */
export interface ReplayedRun {
  readonly id: string
  readonly trigger_id: string
  readonly input: unknown
  readonly tags: ReadonlyArray<string>
  /** Its concurrency key ('' or absent: none); the replay keeps it. */
  readonly concurrency_key?: string | undefined
}

/**
 * Replays: a new run of the same trigger with the same input (or a given
 * one) and tags, `replayOfRunId` naming the run it repeats. A replay is a run
 * request like any other (`RunRequests`, which checks the caller is an
 * operator of the trigger's environment): the trigger's current settings, its
 * input schema, its default tags, an Idempotency-Key, the `run.requested`
 * audit record (with `replayOfRunId` in its metadata).
 */
export class RunReplays extends Effect.Service<RunReplays>()("Runs/Replays", {
  effect: Effect.gen(function*() {
    const policy = yield* Policy
    const runRequests = yield* RunRequests
    const { find } = yield* RunHistory

    /**
     * A replay of `run` by the current actor; `input` reads the new run's
     * input (undefined: the run's own) after the access check. Fails as a
     * run request does (`TriggerNotFound` when the trigger is deleted).
     */
    const replayOf = <E>(
      run: ReplayedRun,
      input: Effect.Effect<RequestedInput, E>,
      options: { readonly idempotencyKey: string | undefined }
    ): Effect.Effect<Created, E | RequestRefused, CurrentActor> =>
      runRequests.request(
        run.trigger_id,
        Effect.map(input, (given) => ({
          input: given ?? { value: run.input ?? null },
          tags: run.tags,
          concurrencyKey: run.concurrency_key === undefined || run.concurrency_key === "" ? undefined : run.concurrency_key
        })),
        { idempotencyKey: options.idempotencyKey, replayOfRunId: run.id }
      )

    /** `POST /runs/{id}/replay`: a run the caller cannot see is not found; below operator in its environment, refused. */
    const replay = <E>(
      runId: string,
      body: Effect.Effect<{ readonly input: RequestedInput }, E>,
      options: { readonly idempotencyKey: string | undefined }
    ): Effect.Effect<Created, E | RequestRefused | RunNotFound | NotVisible | InsufficientRole, CurrentActor> =>
      Effect.gen(function*() {
        const run = yield* find(runId)
        if (run === undefined) return yield* Effect.fail(new RunNotFound({ runId }))
        yield* policy.requireRole(run.environment_id, "operator", "run")
        return yield* replayOf(run, Effect.map(body, (b) => b.input), options)
      }).pipe(Effect.annotateLogs({ replayOfRunId: runId }), Effect.withSpan("Runs.replay"))

    return { replay, replayOf } as const
  })
}) {}
