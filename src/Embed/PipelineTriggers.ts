import { availableAtOf } from "../Runs/Delays.js"
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { ApiKeys } from "../ApiKeys/ApiKeys.js"
import { type Actor, CurrentActor } from "../Contract/Security.js"
import { uuidv7 } from "../Crypto/Ids.js"
import { type Forbidden, NotFound, ValidationError } from "../Contract/Domain/ApiErrors.js"
import { isUuid } from "../Contract/Domain/Uuids.js"
import { wordIssues } from "../Contract/Domain/IssueWording.js"
import type { Role } from "../Contract/Domain/Schemas.js"
import { type Run, type RunStatus, terminalStatuses, toRun } from "../Contract/Domain/Run.js"
import { RunHistory } from "../Runs/RunHistory.js"
import { RunsRepo } from "../Runs/RunsRepo.js"
import { type FeedEvent, RunEvents, RunFeed, type SlowSubscriber } from "../Scheduler/RunFeed.js"
import { RunRequests } from "../Runs/RunRequests.js"
import { Workspaces } from "../Tenancy/Workspaces.js"
import { CreateTrigger, JsonInput, type Trigger } from "../Contract/TriggersApi.js"
import { ConcurrencyKey, RunOptions } from "../Contract/RunsApi.js"
import { Triggers } from "../Triggers/Triggers.js"
import { answerTriggerErrors } from "../Triggers/TriggerWireErrors.js"
import { Workers } from "../Workers/Workers.js"
import { PipelineTriggersConfig } from "./EmbedConfig.js"

export interface RunFilter {
  readonly triggerId?: string | undefined
  readonly environmentId?: string | undefined
  readonly status?: RunStatus | undefined
  readonly limit?: number | undefined
}

export interface EmbeddedEnvironment {
  readonly workspaceId: string
  readonly environmentId: string
  readonly name: string
}

/** Ids reach this API as plain strings: one that is no id names nothing, as over HTTP. */
const idOf = (thing: string) => (value: string): Effect.Effect<string, NotFound> =>
  isUuid(value) ? Effect.succeed(value) : Effect.fail(NotFound.of(thing))
const environmentIdOf = idOf("environment")
const triggerIdOf = idOf("trigger")
const runIdOf = idOf("run")

/** Schema failures as the API's 400: every invalid field named. */
const toValidationError = (error: ParseResult.ParseError): ValidationError => {
  const { fieldErrors, formErrors } = wordIssues(ParseResult.ArrayFormatter.formatErrorSync(error))
  return ValidationError.fields_(fieldErrors, formErrors)
}

/**
 * The scheduler's typed services for an embedding Effect program: create
 * environments and triggers, start runs, read them, and follow terminal runs
 * as a `Stream`. Every call acts as the configured principal (see
 * `principalEmail`), with the same validation, audit records and scheduling
 * as the HTTP API.
 */
export class PipelineTriggers extends Effect.Service<PipelineTriggers>()("PipelineTriggers/PipelineTriggers", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const config = yield* PipelineTriggersConfig
    const workspaces = yield* Workspaces
    const triggers = yield* Triggers
    const runs = yield* RunsRepo
    const history = yield* RunHistory
    const runRequests = yield* RunRequests
    const events = yield* RunEvents
    const feed = yield* RunFeed
    const apiKeys = yield* ApiKeys
    const workers = yield* Workers

    // The password hash is not a scrypt string, so no password ever verifies against it.
    const principalUser = SqlSchema.single({
      Request: Schema.String,
      Result: Schema.Struct({ id: Schema.String }),
      execute: (email) =>
        sql`
        WITH inserted AS (
          INSERT INTO users (id, email, password_hash) VALUES (${uuidv7()}, ${email}, '!')
          ON CONFLICT (email) DO NOTHING RETURNING id
        )
        SELECT id FROM inserted UNION ALL SELECT id FROM users WHERE email = ${email}`
    })
    const principal: Effect.Effect<Actor> = yield* Effect.cached(
      principalUser(config.principalEmail).pipe(
        Effect.map((user): Actor => ({ _tag: "User", userId: user.id, sessionHash: "" })),
        Effect.orDie
      )
    )
    const asPrincipal = <A, E>(effect: Effect.Effect<A, E, CurrentActor>): Effect.Effect<A, E> =>
      Effect.flatMap(principal, (actor) => Effect.provideService(effect, CurrentActor, actor))

    /** A new workspace (named like the environment unless `workspace` is given) with one environment. */
    const createEnvironment = (name: string, options: { readonly workspace?: string } = {}): Effect.Effect<EmbeddedEnvironment> =>
      Effect.gen(function*() {
        const actor = yield* principal
        const userId = actor._tag === "User" ? actor.userId : ""
        const workspace = yield* workspaces.create(userId, options.workspace ?? name)
        const environment = yield* workspaces.createEnvironment(userId, workspace.id, name).pipe(Effect.orDie)
        return { workspaceId: workspace.id, environmentId: environment.id, name }
      }).pipe(Effect.withSpan("PipelineTriggers.createEnvironment"))

    const createTrigger = (
      environmentId: string,
      fields: typeof CreateTrigger.Encoded
    ): Effect.Effect<Trigger, ValidationError | NotFound | Forbidden> =>
      Schema.decodeUnknown(CreateTrigger)(fields).pipe(
        Effect.mapError(toValidationError),
        Effect.flatMap((input) => Effect.flatMap(environmentIdOf(environmentId), (id) => asPrincipal(answerTriggerErrors(triggers.create(id, input)))))
      )

    const getTrigger = (triggerId: string): Effect.Effect<Trigger, NotFound | Forbidden> =>
      Effect.flatMap(triggerIdOf(triggerId), (id) => asPrincipal(answerTriggerErrors(triggers.get(id))))

    /**
     * A new queued run, assigned at once when a worker is online and the
     * trigger's concurrency limits allow. `input` defaults to the trigger's;
     * `concurrencyKey` (1 to 200 characters) is the run's key for `perKey`.
     */
    const startRun = (
      triggerId: string,
      options: {
        readonly input?: unknown
        readonly idempotencyKey?: string
        readonly concurrencyKey?: string
        /** Held `queued` until then: seconds from now (0..2,592,000) or a moment (now .. 30 days ahead); not both. */
        readonly delaySeconds?: number
        readonly runAt?: Date
        /** Seconds the run ranks ahead in the queue (−86,400..86,400). */
        readonly priority?: number
        /** Overrides the trigger's time-to-live (1..2,592,000 s). */
        readonly ttlSeconds?: number
      } = {}
    ): Effect.Effect<Run, NotFound | Forbidden | ValidationError> =>
      Effect.gen(function*() {
        const id = yield* triggerIdOf(triggerId)
        const input = "input" in options
          ? Effect.map(Schema.decodeUnknown(JsonInput)(options.input).pipe(Effect.mapError(toValidationError)), (value) => ({ value }))
          : Effect.succeed(undefined)
        const concurrencyKey = options.concurrencyKey
        const body = Effect.gen(function*() {
          const key = concurrencyKey === undefined ? undefined : (yield* Schema.decodeUnknown(
            Schema.Struct({ concurrencyKey: ConcurrencyKey })
          )({ concurrencyKey }).pipe(Effect.mapError(toValidationError))).concurrencyKey
          // The same rules as the REST body's (`RunOptions`): each field checked, a `ValidationError` naming it.
          const when = yield* Schema.decodeUnknown(RunOptions, { errors: "all" })({
            delaySeconds: options.delaySeconds,
            runAt: options.runAt?.toISOString(),
            priority: options.priority,
            ttlSeconds: options.ttlSeconds
          }).pipe(Effect.mapError(toValidationError))
          return {
            input: yield* input,
            concurrencyKey: key,
            availableAt: yield* availableAtOf(when),
            priority: when.priority,
            ttlSeconds: when.ttlSeconds
          }
        })
        // As over HTTP: the principal must be an operator of the trigger's environment (the service checks),
        // and a worker's waiting claim poll may be handed the run at once.
        const created = yield* asPrincipal(answerTriggerErrors(runRequests.request(id, body, { idempotencyKey: options.idempotencyKey })))
        return toRun(created.run)
      }).pipe(Effect.withSpan("PipelineTriggers.startRun"))

    const getRun = (runId: string): Effect.Effect<Run, NotFound> =>
      runIdOf(runId).pipe(
        Effect.flatMap(history.find),
        Effect.flatMap((row) => row === undefined ? Effect.fail(NotFound.of("run")) : Effect.succeed(toRun(row)))
      )

    /** Newest first, at most `limit` (default 50). */
    const listRuns = (filter: RunFilter = {}): Effect.Effect<ReadonlyArray<Run>> =>
      runs.list({
        triggerId: filter.triggerId,
        environmentId: filter.environmentId,
        status: filter.status,
        limit: filter.limit ?? 50
      }).pipe(Effect.map((rows) => rows.slice(0, filter.limit ?? 50).map(toRun)))

    /** Every run that reaches a terminal state on this instance, from when the stream starts. */
    const terminalRuns: Stream.Stream<Run> = events.terminal

    /**
     * Subscribes now and answers the stream of terminal runs: unlike
     * `terminalRuns`, no run ending between this call and the first pull is missed.
     */
    const subscribeTerminalRuns: Effect.Effect<Stream.Stream<Run>, never, Scope.Scope> = Effect.map(events.subscribe, (queue) =>
      Stream.fromQueue(queue))

    /**
     * Every run transition of the environment, on any instance sharing the
     * database, as `{cursor, run}` (the SSE stream of
     * `GET /environments/{envId}/events`): from now, or after `after` (a cursor
     * an earlier event carried) without loss. Memory per subscriber is bounded:
     * one that leaves its events untaken too long fails with `SlowSubscriber`
     * (which carries its last cursor, to follow again from there).
     */
    const runEvents = (
      environmentId: string,
      options: { readonly after?: string | undefined } = {}
    ): Stream.Stream<FeedEvent, SlowSubscriber> => Stream.unwrapScoped(feed.subscribe(environmentId, options))

    /**
     * The run once it is terminal: at once when it already is, else when this
     * instance records its end. (Subscribes before looking, so nothing slips
     * between; looks again every second, as the bounded stream of terminal
     * runs may have let its end slide by under a flood of others.)
     */
    const awaitTerminal = (runId: string): Effect.Effect<Run, NotFound> =>
      Effect.scoped(Effect.gen(function*() {
        const subscription = yield* events.subscribe
        const current = yield* getRun(runId)
        if ((terminalStatuses as ReadonlyArray<string>).includes(current.status)) return current
        while (true) {
          const run = yield* subscription.take.pipe(Effect.timeoutOption("1 second"))
          if (Option.isSome(run) && run.value.id === current.id) return run.value
          if (Option.isNone(run)) {
            const now = yield* getRun(runId)
            if ((terminalStatuses as ReadonlyArray<string>).includes(now.status)) return now
          }
        }
      }))

    /** A single-use `wrk_` token for `pipeline-worker --registration-token` or the worker SDK. */
    const mintRegistrationToken = (environmentId: string, name = "embedded worker registration"): Effect.Effect<string> =>
      Effect.flatMap(principal, (actor) => apiKeys.create(actor, environmentId, { name, prefix: "wrk", role: null })).pipe(
        Effect.map((key) => key.token)
      )

    /** A `pwk_` API key acting with `role` in the environment, for scripts calling the mounted HTTP API. */
    const mintApiKey = (environmentId: string, role: Exclude<Role, "owner"> = "operator", name = "embedded API key"): Effect.Effect<string> =>
      Effect.flatMap(principal, (actor) => apiKeys.create(actor, environmentId, { name, prefix: "pwk", role })).pipe(
        Effect.map((key) => key.token)
      )

    /** Registers a worker in the environment: its id and `wkt_` token (for the SDK's `credentials`). */
    const registerWorker = (environmentId: string, label?: string): Effect.Effect<{ readonly workerId: string; readonly token: Redacted.Redacted<string> }> =>
      Effect.gen(function*() {
        const registration = yield* workers.register(yield* mintRegistrationToken(environmentId), label).pipe(Effect.orDie)
        return { workerId: registration.worker.id, token: Redacted.make(registration.token) }
      })

    return {
      createEnvironment,
      createTrigger,
      getTrigger,
      startRun,
      getRun,
      listRuns,
      terminalRuns,
      subscribeTerminalRuns,
      runEvents,
      awaitTerminal,
      mintRegistrationToken,
      mintApiKey,
      registerWorker
    } as const
  })
}) {}
