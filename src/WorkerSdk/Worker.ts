import type { HttpClient } from "@effect/platform"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import type * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import { makeClient } from "../Client.js"
import { NotFound } from "../Domain/Errors.js"
import { awaitService, register, validateBaseUrl } from "./Connect.js"
import { fatalUnauthorized, WorkerConfigError, type WorkerError, type WorkerRegistrationError, WorkerUnauthorized } from "./Errors.js"
import * as Completions from "./Completions.js"
import { completeRetries, makeRunProcessor, transition } from "./RunProcessor.js"
import { defaultRetrySchedule, describe, retryTransient } from "./Transient.js"
import type { WorkerCredentials, WorkerOptions } from "./Types.js"

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
 * - When the run's cancel is requested (a heartbeat answer with
 *   `cancelRequestedAt`, or the poll's `cancelRequested`), the handler is
 *   interrupted and the run completed (`cancelledResult`), which the service
 *   records `cancelled`.
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

    // Fast workers batch their completes. Made before the in-flight set, so at
    // shutdown its sender stops after the last run has completed through it.
    const completions = options.claimOnPoll === true
      ? yield* Completions.make(client, workerId, completeRetries(schedule), (runId, payload) =>
        transition(client.workerProtocol.complete({ path: { id: workerId, runId }, payload }), "completing the run", completeRetries(schedule)))
      : undefined

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

    const processRun = makeRunProcessor(client, workerId, options, fraction, schedule, completions)
    // In-flight runs by id: a poll naming one in `cancelRequested` interrupts its handler.
    const cancels = new Map<string, Deferred.Deferred<void>>()

    const waitForSlot = active.changes.pipe(Stream.filter((n) => n < concurrency), Stream.take(1), Stream.runDrain)

    const pollOnce = Effect.gen(function*() {
      yield* waitForSlot
      const free = concurrency - (yield* SubscriptionRef.get(active))
      const claim = options.claimOnPoll === true
      const { cancelRequested, runs } = yield* retryTransient(
        client.workerProtocol.poll({
          path: { id: workerId },
          urlParams: claim ? { wait, claim: "true", max: free, start: "true" } : { wait }
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
      for (const runId of cancelRequested) {
        const signal = cancels.get(runId)
        if (signal !== undefined) yield* Deferred.succeed(signal, undefined)
      }
      // Unclaimed runs beyond the free slots stay assigned and come back on a later poll.
      for (const run of runs.slice(0, free)) {
        yield* SubscriptionRef.update(active, (n) => n + 1)
        const signal = yield* Deferred.make<void>()
        cancels.set(run.id, signal)
        yield* FiberSet.run(
          inFlight,
          processRun(run, Deferred.await(signal)).pipe(
            Effect.ensuring(Effect.zipRight(
              Effect.sync(() => cancels.delete(run.id)),
              SubscriptionRef.update(active, (n) => n - 1)
            ))
          )
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
