import type { HttpClient } from "@effect/platform"
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberSet from "effect/FiberSet"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import { makeClient, type PipelineClient } from "../Client.js"
import { Conflict, NotFound, Unauthorized, ValidationError } from "../Domain/Errors.js"
import type { PolledRun } from "../Scheduler/WorkerApi.js"
import { WorkerConfigError, type WorkerError, WorkerRegistrationError, WorkerUnauthorized } from "./Errors.js"
import { defaultRetrySchedule, describe, retryTransient } from "./Transient.js"

/** A run as the worker receives it, with its trigger's name, input and timeouts. */
export type WorkerRun = typeof PolledRun.Type

/** What a handler reports for a run; sent as the `complete` call. */
export interface RunResult {
  readonly status: "succeeded" | "failed"
  readonly stdout?: string | undefined
  readonly stderr?: string | undefined
  /** Decimal string, e.g. `"0.0123"`. */
  readonly costUsd?: string | undefined
  /** For failed runs: whose fault it was (default `client`). */
  readonly faultClass?: "infra" | "client" | undefined
}

export interface WorkerCredentials {
  readonly workerId: string
  readonly token: Redacted.Redacted<string>
}

export interface WorkerOptions<E, R> {
  /** The service's origin, e.g. `http://localhost:3000`. */
  readonly baseUrl: string
  /** A `wkt_` worker token with its worker id (from an earlier registration)... */
  readonly credentials?: WorkerCredentials | undefined
  /** ...or a `wrk_` registration token: the worker registers first. */
  readonly registrationToken?: string | Redacted.Redacted<string> | undefined
  /** The label a registering worker gets. */
  readonly label?: string | undefined
  /** Called once after registration, e.g. to keep the `wkt_` token for the next start. */
  readonly onRegistered?: ((credentials: WorkerCredentials) => Effect.Effect<void>) | undefined
  /** Runs executed at the same time. Default 1. */
  readonly concurrency?: number | undefined
  /** Executes one run. Interrupted when the run's `timeoutSeconds` passes or the service ends it. */
  readonly handler: (run: WorkerRun) => Effect.Effect<RunResult, E, R>
  /** Long-poll wait, 0..30 seconds. Default 30. */
  readonly pollWaitSeconds?: number | undefined
  /** Claim in the poll call itself (`claim=true&max=K`). Default false. */
  readonly claimOnPoll?: boolean | undefined
  /** Heartbeat every this fraction of the run's `heartbeatTimeoutSeconds`. Default 1/3. */
  readonly heartbeatFraction?: number | undefined
  /** On interruption, how long in-flight runs may still take before they are failed. Default 10 s. */
  readonly shutdownGracePeriod?: Duration.DurationInput | undefined
  /** Delays between retries of transient failures. Default: exponential from 250 ms, capped at 30 s, forever. */
  readonly retrySchedule?: Schedule.Schedule<unknown, unknown> | undefined
}

// The service keeps the first 500 characters of stdout and 64 KiB of stderr;
// sending more would only risk the 1 MiB body limit.
const stdoutChars = 4096
const stderrBytes = 64 * 1024

const firstChars = (text: string, n: number): string => text.length <= n ? text : Array.from(text.slice(0, n * 2)).slice(0, n).join("")
const firstBytes = (text: string, max: number): string => {
  const bytes = Buffer.from(text, "utf8")
  if (bytes.length <= max) return text
  let end = max
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--
  return bytes.subarray(0, end).toString("utf8")
}

const toRedacted = (value: string | Redacted.Redacted<string>): Redacted.Redacted<string> =>
  Redacted.isRedacted(value) ? value : Redacted.make(value)

/** A malformed URL is a configuration error, not something to retry. */
export const validateBaseUrl = (baseUrl: string): Effect.Effect<string, WorkerConfigError> => {
  try {
    const url = new URL(baseUrl)
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("not http(s)")
    return Effect.succeed(url.toString().replace(/\/+$/, ""))
  } catch {
    return Effect.fail(new WorkerConfigError({ message: `invalid service URL "${baseUrl}": expected an http(s) URL such as http://localhost:3000` }))
  }
}

/**
 * Waits until the service answers its health check. Unreachable or 5xx: retried
 * with backoff (logged). Any other answer means the URL names something else.
 */
export const awaitService = (
  baseUrl: string,
  schedule: Schedule.Schedule<unknown, unknown> = defaultRetrySchedule
): Effect.Effect<void, WorkerConfigError, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const url = yield* validateBaseUrl(baseUrl)
    const client = yield* makeClient(url)
    yield* retryTransient(
      client.health.health().pipe(
        Effect.timeout("30 seconds"),
        // An unreadable answer here is not a blip: it is a different server.
        Effect.catchIf(ParseResult.isParseError, () =>
          Effect.fail(new WorkerConfigError({
            message: `${url} does not answer like a Pipeline Trigger Service (GET /api/v1/health); give the service's origin, e.g. http://localhost:3000`
          })))
      ),
      "connecting to the service",
      schedule
    ).pipe(
      Effect.catchAll((error) =>
        error instanceof WorkerConfigError ? Effect.fail(error) : Effect.fail(new WorkerConfigError({
          message: `${url} does not answer like a Pipeline Trigger Service (${describe(error)}); give the service's origin, e.g. http://localhost:3000`
        }))
      )
    )
  })

/**
 * Registers a worker with a single-use `wrk_` token and answers its id and
 * `wkt_` token. Transient failures are retried; a refused token is final.
 */
export const register = (
  baseUrl: string,
  registrationToken: string | Redacted.Redacted<string>,
  options: { readonly label?: string | undefined; readonly retrySchedule?: Schedule.Schedule<unknown, unknown> | undefined } = {}
): Effect.Effect<WorkerCredentials, WorkerRegistrationError | WorkerConfigError, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const url = yield* validateBaseUrl(baseUrl)
    const client = yield* makeClient(url)
    const token = Redacted.value(toRedacted(registrationToken))
    const payload = options.label === undefined ? { registrationToken: token } : { registrationToken: token, label: options.label }
    const registration = yield* retryTransient(
      client.workers.register({ payload }).pipe(Effect.timeout("30 seconds")),
      "registering the worker",
      options.retrySchedule ?? defaultRetrySchedule
    ).pipe(
      Effect.catchAll((error) => {
        if (error instanceof Unauthorized) {
          return Effect.fail(new WorkerRegistrationError({ message: "registration token refused: it is unknown or was already used (mint a new wrk_ token)" }))
        }
        if (error instanceof ValidationError) {
          const fields = Object.entries(error.details.fieldErrors).map(([k, v]) => `${k}: ${v.join(", ")}`)
          return Effect.fail(new WorkerRegistrationError({ message: `registration refused: ${[...fields, ...error.details.formErrors].join("; ")}` }))
        }
        return Effect.fail(new WorkerRegistrationError({ message: `registration failed: ${describe(error)}` }))
      })
    )
    yield* Effect.logInfo("worker registered").pipe(Effect.annotateLogs({ workerId: registration.worker.id }))
    return { workerId: registration.worker.id, token: Redacted.make(registration.token) }
  })

/**
 * The credentials of the worker a `wkt_` token belongs to (`GET /workers/me`),
 * for an agent that was given only its token.
 */
export const identify = (
  baseUrl: string,
  token: string | Redacted.Redacted<string>,
  options: { readonly retrySchedule?: Schedule.Schedule<unknown, unknown> | undefined } = {}
): Effect.Effect<WorkerCredentials, WorkerUnauthorized | WorkerConfigError, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const url = yield* validateBaseUrl(baseUrl)
    const redacted = toRedacted(token)
    const client = yield* makeClient(url, { bearer: redacted })
    const worker = yield* retryTransient(
      client.workerProtocol.me().pipe(Effect.timeout("30 seconds")),
      "identifying the worker",
      options.retrySchedule ?? defaultRetrySchedule
    ).pipe(
      Effect.catchAll((error) =>
        Effect.fail(
          error instanceof Unauthorized || error instanceof NotFound
            ? new WorkerUnauthorized({ message: "worker token refused: it is unknown or its worker was removed" })
            : new WorkerConfigError({ message: `could not identify the worker: ${describe(error)}` })
        )
      )
    )
    return { workerId: worker.id, token: redacted }
  })

/** How one run ended on this side, before the `complete` call. */
type Outcome =
  | { readonly _tag: "Done"; readonly result: RunResult }
  | { readonly _tag: "Lost" }
  | { readonly _tag: "TimedOut" }

class RunLost {
  readonly _tag = "RunLost"
}

/** 401 on any call means the token no longer works: the worker cannot continue. */
const fatalUnauthorized = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, Unauthorized> | WorkerUnauthorized, R> =>
  Effect.catchAll(effect, (error): Effect.Effect<never, Exclude<E, Unauthorized> | WorkerUnauthorized> =>
    error instanceof Unauthorized
      ? Effect.fail(new WorkerUnauthorized({ message: "worker token refused (401): it was revoked, or the worker was deleted; register again with a new wrk_ token" }))
      : Effect.fail(error as Exclude<E, Unauthorized>))

const messageOf = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.squash(cause)
  if (error instanceof Error) return error.message
  if (typeof error === "string") return error
  try {
    return JSON.stringify(error)
  } catch {
    return String(error)
  }
}

/**
 * Runs a worker until interrupted or until it cannot continue (a refused
 * token, a bad URL). It long-polls for runs, claims and starts each one, runs
 * `handler` while heartbeating at a fraction of the run's
 * `heartbeatTimeoutSeconds`, and completes the run with the handler's result.
 *
 * - A handler failure completes the run `failed` (stderr = the error), with
 *   `faultClass: "client"` for a typed failure and `"infra"` for a defect.
 * - Past the run's `timeoutSeconds` the handler is interrupted and the run is
 *   left to the service, which records it `timed_out`.
 * - On interruption (SIGTERM through `NodeRuntime.runMain`) the worker stops
 *   polling at once, lets in-flight runs finish within `shutdownGracePeriod`,
 *   then interrupts the rest and completes them `failed` with `faultClass: "infra"`.
 */
export const runWorker = <E, R>(options: WorkerOptions<E, R>): Effect.Effect<never, WorkerError, HttpClient.HttpClient | R> =>
  Effect.gen(function*() {
    const schedule = options.retrySchedule ?? defaultRetrySchedule
    const url = yield* validateBaseUrl(options.baseUrl)
    const concurrency = Math.max(1, Math.floor(options.concurrency ?? 1))
    const wait = Math.min(30, Math.max(0, Math.floor(options.pollWaitSeconds ?? 30)))
    const fraction = options.heartbeatFraction ?? 1 / 3
    const grace = Duration.decode(options.shutdownGracePeriod ?? "10 seconds")

    yield* awaitService(url, schedule)
    const credentials = yield* resolveCredentials(url, options, schedule)
    const workerId = credentials.workerId
    const client = yield* makeClient(url, { bearer: credentials.token })

    const active = yield* SubscriptionRef.make(0)
    const inFlight = yield* FiberSet.make<void, WorkerUnauthorized>()
    // Added after the FiberSet, so it runs first when the scope closes: in-flight
    // runs get the grace period before the FiberSet interrupts what remains.
    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        const running = yield* FiberSet.size(inFlight)
        if (running === 0) return
        yield* Effect.logInfo("shutting down: waiting for in-flight runs").pipe(
          Effect.annotateLogs({ runs: running, graceMillis: Duration.toMillis(grace) })
        )
        // Finalizers are uninterruptible; the wait must not be, or the timeout could not cut it short.
        const drained = yield* Effect.interruptible(FiberSet.awaitEmpty(inFlight)).pipe(Effect.timeoutOption(grace))
        if (drained._tag === "None") yield* Effect.logWarning("grace period over: failing the runs still in flight")
      })
    )

    const processRun = makeRunProcessor(client, workerId, options, fraction, schedule)

    const waitForSlot = active.changes.pipe(Stream.filter((n) => n < concurrency), Stream.take(1), Stream.runDrain)

    const pollOnce = Effect.gen(function*() {
      yield* waitForSlot
      const free = concurrency - (yield* SubscriptionRef.get(active))
      const claim = options.claimOnPoll === true
      const { runs } = yield* retryTransient(
        client.workerProtocol.poll({
          path: { id: workerId },
          urlParams: claim ? { wait, claim: "true", max: free } : { wait }
        }).pipe(Effect.timeout(Duration.seconds(wait + 15))),
        "polling for runs",
        schedule
      ).pipe(
        fatalUnauthorized,
        Effect.catchAll((error): Effect.Effect<never, WorkerConfigError | WorkerUnauthorized> =>
          error instanceof WorkerUnauthorized ? Effect.fail(error) : Effect.fail(new WorkerConfigError({
            message: error instanceof NotFound
              ? `worker ${workerId} does not belong to this token (404 on poll): check the worker id`
              : `polling failed: ${describe(error)}`
          }))
        )
      )
      // Unclaimed runs beyond the free slots stay assigned and come back on a later poll.
      for (const run of runs.slice(0, free)) {
        yield* SubscriptionRef.update(active, (n) => n + 1)
        yield* FiberSet.run(
          inFlight,
          processRun(run, claim).pipe(Effect.ensuring(SubscriptionRef.update(active, (n) => n - 1)))
        )
      }
    })

    yield* Effect.logInfo("worker polling for runs").pipe(Effect.annotateLogs({ workerId, concurrency }))
    const pollLoop = Effect.forever(pollOnce).pipe(
      Effect.onInterrupt(() => Effect.logInfo("shutting down: stopped polling"))
    )
    // A run fiber failing (a refused token mid-run) stops the worker as well.
    return yield* Effect.raceFirst(pollLoop, FiberSet.join(inFlight).pipe(Effect.zipRight(Effect.never)))
  }).pipe(Effect.scoped)

const resolveCredentials = <E, R>(
  url: string,
  options: WorkerOptions<E, R>,
  schedule: Schedule.Schedule<unknown, unknown>
): Effect.Effect<WorkerCredentials, WorkerConfigError | WorkerRegistrationError, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    if (options.credentials !== undefined) return options.credentials
    if (options.registrationToken === undefined) {
      return yield* Effect.fail(new WorkerConfigError({ message: "no credentials: give a wkt_ worker token with its worker id, or a wrk_ registration token" }))
    }
    const credentials = yield* register(url, options.registrationToken, { label: options.label, retrySchedule: schedule })
    if (options.onRegistered !== undefined) yield* options.onRegistered(credentials)
    return credentials
  })

const makeRunProcessor = <E, R>(
  client: PipelineClient,
  workerId: string,
  options: WorkerOptions<E, R>,
  fraction: number,
  schedule: Schedule.Schedule<unknown, unknown>
) =>
(run: WorkerRun, alreadyClaimed: boolean): Effect.Effect<void, WorkerUnauthorized, R> => {
  const path = { id: workerId, runId: run.id }
  // Requests a run transition; 404/409 mean the run is no longer ours to move.
  const transition = (
    call: Effect.Effect<unknown, unknown>,
    what: string,
    retries: Schedule.Schedule<unknown, unknown>
  ): Effect.Effect<boolean, WorkerUnauthorized> =>
    retryTransient(call.pipe(Effect.timeout("30 seconds")), what, retries).pipe(
      Effect.as(true),
      fatalUnauthorized,
      Effect.catchAll((error) =>
        error instanceof WorkerUnauthorized
          ? Effect.fail(error)
          : Effect.as(
            Effect.logWarning(`${what}: refused`).pipe(Effect.annotateLogs({ reason: describe(error) })),
            false
          )
      )
    )

  const completeRetries = schedule.pipe(Schedule.intersect(Schedule.recurs(8)), Schedule.asVoid)
  const complete = (result: RunResult, retries = completeRetries) =>
    transition(
      client.workerProtocol.complete({
        path,
        payload: {
          status: result.status,
          ...(result.stdout !== undefined ? { stdout: firstChars(result.stdout, stdoutChars) } : {}),
          ...(result.stderr !== undefined ? { stderr: firstBytes(result.stderr, stderrBytes) } : {}),
          ...(result.costUsd !== undefined ? { costUsd: result.costUsd } : {}),
          ...(result.status === "failed" ? { faultClass: result.faultClass ?? "client" } : {})
        }
      }),
      "completing the run",
      retries
    ).pipe(Effect.tap((done) => done ? Effect.logInfo("run completed").pipe(Effect.annotateLogs({ status: result.status })) : Effect.void))

  const heartbeatEvery = Duration.millis(Math.max(500, run.trigger.heartbeatTimeoutSeconds * 1000 * fraction))
  // A few quick retries: a heartbeat that waits for the full backoff would come too late anyway.
  const heartbeatRetries = Schedule.exponential("200 millis").pipe(Schedule.intersect(Schedule.recurs(3)), Schedule.asVoid)
  const heartbeat: Effect.Effect<never, RunLost | WorkerUnauthorized> = Effect.sleep(heartbeatEvery).pipe(
    Effect.zipRight(
      retryTransient(client.workerProtocol.heartbeat({ path }).pipe(Effect.timeout("10 seconds")), "heartbeat", heartbeatRetries).pipe(
        fatalUnauthorized,
        Effect.catchAll((error): Effect.Effect<void, RunLost | WorkerUnauthorized> => {
          if (error instanceof WorkerUnauthorized) return Effect.fail(error)
          // The service already ended the run (timed out, or it is gone): stop working on it.
          if (error instanceof Conflict || error instanceof NotFound) return Effect.fail(new RunLost())
          return Effect.logWarning("heartbeat failed; trying again at the next interval").pipe(
            Effect.annotateLogs({ reason: describe(error) })
          )
        })
      )
    ),
    Effect.forever
  )

  const execute: Effect.Effect<Outcome, WorkerUnauthorized, R> = Effect.raceFirst(
    options.handler(run).pipe(
      Effect.map((result): Outcome => ({ _tag: "Done", result })),
      Effect.catchAllCause((cause) =>
        Cause.isInterruptedOnly(cause)
          ? Effect.failCause(cause as Cause.Cause<never>)
          : Effect.succeed<Outcome>({
            _tag: "Done",
            result: {
              status: "failed",
              stderr: messageOf(cause),
              faultClass: Option.isSome(Cause.failureOption(cause)) ? "client" : "infra"
            }
          })
      ),
      Effect.timeoutTo({
        duration: Duration.seconds(run.trigger.timeoutSeconds),
        onSuccess: (outcome) => outcome,
        onTimeout: (): Outcome => ({ _tag: "TimedOut" })
      })
    ),
    heartbeat.pipe(Effect.catchIf((e): e is RunLost => e instanceof RunLost, () => Effect.succeed<Outcome>({ _tag: "Lost" })))
  )

  const shutdownFailure: RunResult = { status: "failed", stderr: "the worker shut down before the run finished", faultClass: "infra" }
  const shutdownRetries = Schedule.exponential("200 millis").pipe(Schedule.intersect(Schedule.recurs(2)), Schedule.asVoid)

  // Everything outside `restore` is uninterruptible: once a run is ours, it is
  // always completed (or knowingly left to the service), even on shutdown.
  return Effect.uninterruptibleMask((restore) =>
    Effect.gen(function*() {
      const claimedExit = yield* restore(
        alreadyClaimed ? Effect.succeed(true) : transition(client.workerProtocol.claim({ path }), "claiming the run", schedule)
      ).pipe(Effect.exit)
      if (Exit.isFailure(claimedExit)) {
        if (Cause.isInterruptedOnly(claimedExit.cause)) return
        return yield* Effect.failCause(claimedExit.cause)
      }
      if (!claimedExit.value) return
      const startedExit = yield* restore(transition(client.workerProtocol.start({ path }), "starting the run", schedule)).pipe(Effect.exit)
      if (Exit.isFailure(startedExit)) {
        if (!Cause.isInterruptedOnly(startedExit.cause)) return yield* Effect.failCause(startedExit.cause)
        yield* complete(shutdownFailure, shutdownRetries)
        return
      }
      if (!startedExit.value) return
      yield* Effect.logInfo("run started")
      const outcome = yield* restore(execute).pipe(Effect.exit)
      if (Exit.isFailure(outcome)) {
        if (!Cause.isInterruptedOnly(outcome.cause)) return yield* Effect.failCause(outcome.cause)
        yield* complete(shutdownFailure, shutdownRetries)
        return
      }
      switch (outcome.value._tag) {
        case "Done":
          yield* complete(outcome.value.result)
          return
        case "Lost":
          return yield* Effect.logWarning("the service ended the run before it finished (timed out); result dropped")
        case "TimedOut":
          return yield* Effect.logWarning("run passed its timeoutSeconds: stopped; the service records it timed_out").pipe(
            Effect.annotateLogs({ timeoutSeconds: run.trigger.timeoutSeconds })
          )
      }
    })
  ).pipe(Effect.annotateLogs({ runId: run.id, triggerId: run.triggerId }))
}
