import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Grouped from "../Concurrency/Grouped.js"
import { ValidationError } from "../Contract/Domain/ApiErrors.js"
import { roleAtLeast } from "../Contract/Domain/Schemas.js"
import { CurrentActor } from "../Contract/Security.js"
import * as Metrics from "../Observability/Metrics.js"
import { Supervisor } from "../Scheduler/Supervision.js"
import type { Created, CreateRequest } from "../RunStore/RunStore.js"
import { Policy } from "../Tenancy/Policy.js"
import type { InsufficientRole, NotVisible } from "../Tenancy/TenancyErrors.js"
import { TriggerNotFound } from "../Triggers/TriggerErrors.js"
import { RunsRepo } from "./RunsRepo.js"

/** The most runs one creating statement inserts. */
export const maxRunsPerStatement = 100

/** A run's input as the request gives it: undefined takes the trigger's. */
export type RequestedInput = CreateRequest["input"]

/** What a front door reads from the request: its input, its tags (the trigger's default tags come first), its concurrency key, when it may start, its priority and time-to-live. */
export interface RequestedBody {
  readonly input: RequestedInput
  readonly tags?: ReadonlyArray<string> | undefined
  /** The run's concurrency key (see docs/flow-control.md); undefined: the trigger's `keyFrom`, else none. */
  readonly concurrencyKey?: string | undefined
  /** Not placed before this moment (epoch ms): the request's `delaySeconds` or `runAt`. */
  readonly availableAt?: number | undefined
  /** Seconds the run ranks ahead in the queue. */
  readonly priority?: number | undefined
  /** Overrides the trigger's time-to-live. */
  readonly ttlSeconds?: number | undefined
}

/** What `request` can refuse, besides the caller's own input errors. */
export type RequestRefused = TriggerNotFound | NotVisible | InsufficientRole | ValidationError

interface Item {
  readonly triggerId: string
  readonly environmentId: string
  readonly request: CreateRequest
}

/**
 * Run requests: every front door (HTTP, MCP tools, the embedding API) asks
 * here, and the access policy is checked here, once for all of them: the
 * caller (`CurrentActor`) must be an operator of the trigger's environment.
 *
 * Committed in groups (`Concurrency/Grouped`). While a trigger's creating
 * statement is in flight, further requests for that trigger wait, and the
 * next statement creates all of them at once (up to `maxRunsPerStatement`):
 * one round trip, one lock on the trigger row and one commit for the lot,
 * instead of one each. A request that finds nothing in flight goes at once,
 * so grouping adds no wait at idle.
 *
 * Each request still gets its own answer: its run (placed, handed to a
 * waiting poll or queued, as `RunStore.createMany` and
 * `Supervisor.createRuns` decide), or the earlier run for a repeated
 * Idempotency-Key.
 */
export class RunRequests extends Effect.Service<RunRequests>()("Runs/RunRequests", {
  scoped: Effect.gen(function*() {
    const supervisor = yield* Supervisor
    const policy = yield* Policy
    const runs = yield* RunsRepo

    const grouped = yield* Grouped.make<Item, Created | undefined, ValidationError>({
      max: maxRunsPerStatement,
      run: (_key, items) => {
        const { environmentId, triggerId } = items[0]!
        return supervisor.createRuns(triggerId, items.map((item) => item.request), { environmentId }).pipe(
          Effect.map((requested) => {
            // Idempotent replays answer an earlier run: only new runs count as requested.
            Metrics.record.runsRequested(
              environmentId,
              requested.reduce((n, r) => r !== undefined && !(r instanceof ValidationError) && r.created ? n + 1 : n, 0)
            )
            return requested.map((r) => r instanceof ValidationError ? Effect.fail(r) : Effect.succeed(r))
          })
        )
      }
    })

    /** A new run of the trigger in `environmentId`; undefined when there is no such live trigger there. */
    const create = (triggerId: string, environmentId: string, request: CreateRequest): Effect.Effect<Created | undefined, ValidationError> =>
      grouped(`${triggerId}/${environmentId}`, { triggerId, environmentId, request })

    /**
     * A new run of the trigger, placed where the scheduler's rules allow, for
     * a caller with at least `operator` in the trigger's environment.
     * `body` reads the request's input and tags (its failure `E` is the front door's
     * own: a malformed body, say); it runs after the access check, so a caller
     * who may not request runs learns nothing from it. Fails with
     * `TriggerNotFound` (no such live trigger), `NotVisible` or
     * `InsufficientRole` (the access policy), or a `ValidationError` (400,
     * naming each failing path; nothing stored) when the input does not match
     * the trigger's `inputSchema`.
     *
     * The common case, a script's operator key (or an MCP token): the actor
     * names its environment, so the trigger lookup and the role check are part
     * of the creating statement, which inserts only for a live trigger of that
     * environment. Anything else (no such trigger there, a bad input, a user)
     * takes the checked path, which answers the exact error.
     */
    const request = <E>(
      triggerId: string,
      body: Effect.Effect<RequestedBody, E>,
      options: {
        readonly idempotencyKey: string | undefined
        /** For a replay: the run it repeats. */
        readonly replayOfRunId?: string | undefined
      }
    ): Effect.Effect<Created, E | RequestRefused, CurrentActor> =>
      Effect.gen(function*() {
        const actor = yield* CurrentActor
        const rest = { idempotencyKey: options.idempotencyKey, replayOfRunId: options.replayOfRunId }
        // An MCP token reaches its own trigger only; any other is not found, as a missing one.
        if (actor._tag === "Mcp" && actor.triggerId !== triggerId.toLowerCase()) {
          return yield* Effect.fail(new TriggerNotFound({ triggerId }))
        }
        if (actor._tag !== "User" && roleAtLeast(actor.role, "operator")) {
          const fast = yield* Effect.either(body)
          if (Either.isRight(fast)) {
            const created = yield* create(triggerId, actor.environmentId, { ...fast.right, ...rest, actor })
            if (created !== undefined) return created
          }
        }
        const trigger = yield* runs.findTrigger(triggerId)
        if (trigger === undefined) return yield* Effect.fail(new TriggerNotFound({ triggerId }))
        yield* policy.requireRole(trigger.environment_id, "operator", "trigger")
        const created = yield* create(trigger.id, trigger.environment_id, { ...(yield* body), ...rest, actor })
        if (created === undefined) return yield* Effect.fail(new TriggerNotFound({ triggerId }))
        return created
      })

    return { request } as const
  })
}) {}
