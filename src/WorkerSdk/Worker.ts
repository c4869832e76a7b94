import * as HttpClient from "@effect/platform/HttpClient"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import type * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import { makeClient } from "../Client.js"
import { NotFound } from "../Contract/Domain/ApiErrors.js"
import { awaitService, register, validateBaseUrl } from "./Connect.js"
import { fatalUnauthorized, WorkerConfigError, type WorkerError, type WorkerRegistrationError, WorkerUnauthorized } from "./Errors.js"
import * as Calls from "./Calls.js"
import { globalWebSocket } from "./Channel.js"
import * as ChannelCalls from "./ChannelCalls.js"
import * as ChannelLink from "./ChannelLink.js"
import * as Completions from "./Completions.js"
import * as Batcher from "./Batcher.js"
import * as SlotLedger from "./SlotLedger.js"
import type { WorkerRun } from "./Types.js"
import type { RunLog } from "./RunLog.js"
import { channelHeader, channelPath } from "../Contract/WorkerChannelRpcs.js"
import { completeRetries, makeRunProcessor, transition } from "./RunProcessor.js"
import * as Redacted from "effect/Redacted"
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
 *
 * When the service offers the worker channel (`GET /workers/me` names it) and
 * a WebSocket is at hand (`webSocket`, or the runtime's own), the runs are
 * pushed over it instead of polled, and the steps go over it batched; see
 * `transport`. The rules above are the same either way.
 */
export const runWorker = <E, R>(options: WorkerOptions<E, R>): Effect.Effect<never, WorkerError, HttpClient.HttpClient | Exclude<R, RunLog>> =>
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
    const useChannel = yield* chooseChannel(url, credentials.token, options, schedule)

    // The channel (when used) and the batched completes are made before the
    // in-flight set, so at shutdown they stop after the last run has completed through them.
    const link = useChannel === undefined
      ? undefined
      : yield* ChannelLink.make(url, credentials.token, useChannel, schedule,
        Effect.provideService(checkToken(url, credentials.token, schedule), HttpClient.HttpClient, yield* HttpClient.HttpClient))
    const slots = SlotLedger.make()
    const calls = link === undefined ? Calls.rest(client, workerId) : yield* ChannelCalls.make(link, slots)
    const completions = link === undefined && options.claimOnPoll === true
      ? yield* Completions.make(client, workerId, completeRetries(schedule), (runId, payload) =>
        transition(client.workerProtocol.complete({ path: { id: workerId, runId }, payload }), "completing the run", completeRetries(schedule)))
      : undefined

    const active = yield* SubscriptionRef.make(0)
    const inFlight = yield* FiberSet.make<void, WorkerUnauthorized>()
    // Set when the token was refused: nothing in flight can be reported any more, so there is no grace to give.
    let revoked = false
    // Added after the FiberSet, so it runs first when the scope closes: in-flight
    // runs get the grace period before the FiberSet interrupts what remains.
    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        const running = yield* FiberSet.size(inFlight)
        if (running === 0 || revoked) return
        yield* Effect.logInfo("shutting down: waiting for in-flight runs").pipe(
          Effect.annotateLogs({ runs: running, graceMillis: Duration.toMillis(grace) })
        )
        // Finalizers are uninterruptible; the wait must not be, or the timeout could not cut it short.
        const drained = yield* Effect.interruptible(FiberSet.awaitEmpty(inFlight)).pipe(Effect.timeoutOption(grace))
        if (drained._tag === "None") yield* Effect.logWarning("grace period over: failing the runs still in flight")
      })
    )

    const markRevoked = (error: unknown) =>
      Effect.sync(() => {
        if (error instanceof WorkerUnauthorized) revoked = true
      })

    const processRun = makeRunProcessor(calls, options, fraction, schedule, completions)
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
        // Only a refused token or a worker id that is not the token's stops the worker; any other
        // answer (or a retry schedule that gave up) is logged and the poll goes out again.
        Effect.catchAll((error): Effect.Effect<{ readonly cancelRequested: ReadonlyArray<string>; readonly runs: ReadonlyArray<WorkerRun> }, WorkerConfigError | WorkerUnauthorized> => {
          if (error instanceof WorkerUnauthorized) return Effect.fail(error)
          if (error instanceof NotFound) {
            return Effect.fail(new WorkerConfigError({ message: `worker ${workerId} does not belong to this token (404 on poll): check the worker id` }))
          }
          return Effect.as(
            Effect.zipRight(Effect.logWarning("polling failed; polling again").pipe(Effect.annotateLogs({ reason: describe(error) })), Effect.sleep("1 second")),
            { cancelRequested: [], runs: [] }
          )
        })
      )
      yield* cancelRuns(cancelRequested)
      // Unclaimed runs beyond the free slots stay assigned and come back on a later poll. A run
      // this worker is already claiming is still assigned, so a poll answers it again: it is ours already.
      for (const run of runs.filter((run) => !cancels.has(run.id)).slice(0, free)) yield* startRun(run)
    })

    const cancelRuns = (runIds: ReadonlyArray<string>) =>
      Effect.forEach(runIds, (runId) => {
        const signal = cancels.get(runId)
        return signal === undefined ? Effect.void : Deferred.succeed(signal, undefined)
      }, { discard: true })

    const startRun = (run: WorkerRun, finished: Effect.Effect<void> = Effect.void) =>
      Effect.gen(function*() {
        yield* SubscriptionRef.update(active, (n) => n + 1)
        const signal = yield* Deferred.make<void>()
        cancels.set(run.id, signal)
        yield* FiberSet.run(
          inFlight,
          processRun(run, Deferred.await(signal)).pipe(
            // A defect in the worker's own code is this run's problem, not the worker's: the service's
            // supervision times the run out if it was never completed.
            Effect.catchAllDefect((defect) => Effect.logError("run processing died; the run is left to the service", Cause.die(defect))),
            Effect.ensuring(Effect.zipRight(
              Effect.sync(() => cancels.delete(run.id)),
              Effect.zipRight(SubscriptionRef.update(active, (n) => n - 1), finished)
            ))
          )
        )
      })

    if (link !== undefined) {
      yield* Effect.logInfo("worker taking runs over the channel").pipe(Effect.annotateLogs({ workerId, concurrency }))
      const pushes = channelPushes(link, slots, concurrency, active, startRun, cancelRuns)
      return yield* Effect.raceFirst(
        pushes.pipe(Effect.onInterrupt(() => Effect.logInfo("shutting down: stopped taking runs"))),
        FiberSet.join(inFlight).pipe(Effect.zipRight(Effect.never))
      ).pipe(Effect.tapError(markRevoked))
    }

    yield* Effect.logInfo("worker polling for runs").pipe(Effect.annotateLogs({ workerId, concurrency }))
    const pollLoop = Effect.forever(pollOnce).pipe(
      Effect.onInterrupt(() => Effect.logInfo("shutting down: stopped polling"))
    )
    // A run fiber failing (a refused token mid-run) stops the worker as well.
    return yield* Effect.raceFirst(pollLoop, FiberSet.join(inFlight).pipe(Effect.zipRight(Effect.never))).pipe(Effect.tapError(markRevoked))
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

/** Whether the service offers the channel (`GET /workers/me` names it); a refused token stops the worker. */
const offersChannel = (url: string, token: Redacted.Redacted<string>, schedule: Schedule.Schedule<unknown, unknown>) =>
  Effect.gen(function*() {
    const http = (yield* HttpClient.HttpClient).pipe(HttpClient.filterStatus((status) => status < 500))
    const response = yield* retryTransient(
      http.get(`${url}/api/v1/workers/me`, { headers: { authorization: `Bearer ${Redacted.value(token)}` } }).pipe(Effect.timeout("30 seconds")),
      "asking for the worker channel",
      schedule
    ).pipe(Effect.orElseSucceed(() => undefined))
    if (response?.status === 401) {
      return yield* Effect.fail(new WorkerUnauthorized({ message: "worker token refused (401): it was revoked, or the worker was deleted; register again with a new wrk_ token" }))
    }
    return response?.status === 200 && response.headers[channelHeader] === channelPath
  }).pipe(Effect.scoped)

/** After the channel dropped: a refused token stops the worker (the service closes a revoked worker's channel). */
const checkToken = (url: string, token: Redacted.Redacted<string>, schedule: Schedule.Schedule<unknown, unknown>) =>
  Effect.asVoid(offersChannel(url, token, schedule))

/** The WebSocket to use, or undefined for REST (`transport`: auto asks the service). */
const chooseChannel = <E, R>(
  url: string,
  token: Redacted.Redacted<string>,
  options: WorkerOptions<E, R>,
  schedule: Schedule.Schedule<unknown, unknown>
) =>
  Effect.gen(function*() {
    const transport = options.transport ?? "auto"
    const webSocket = options.webSocket ?? globalWebSocket
    if (transport === "rest") return undefined
    if (webSocket === undefined) {
      if (transport === "auto") return undefined
      return yield* Effect.fail(new WorkerConfigError({ message: "transport \"channel\" needs a WebSocket: give webSocket (on Node 20, one built on the ws package)" }))
    }
    if (transport === "channel") return webSocket
    return (yield* offersChannel(url, token, schedule)) ? webSocket : undefined
  })

/**
 * Takes the runs the channel pushes: subscribes with the free slots, gives a
 * slot back each time a run ends (with the run's complete when it can, see
 * `SlotLedger`; else batched, one `Slots` per round trip), and after the
 * subscription ends (the connection dropped, or the service could not serve
 * it: any failure, typed or not) subscribes again on the next connection
 * with the slots then free. Only a refused token ends it (the link checks
 * the token before each new connection). A run pushed while the worker is
 * full (never, unless the count was off) still runs: it is already started.
 */
const channelPushes = <R>(
  link: ChannelLink.ChannelLink,
  slots: SlotLedger.SlotLedger,
  concurrency: number,
  active: SubscriptionRef.SubscriptionRef<number>,
  /** Starts a pushed run; `finished` runs when it ends. */
  startRun: (run: WorkerRun, finished: Effect.Effect<void>) => Effect.Effect<void, never, R>,
  cancelRuns: (runIds: ReadonlyArray<string>) => Effect.Effect<void>
): Effect.Effect<never, WorkerUnauthorized, R> =>
  Effect.gen(function*() {
    // Each subscription counts the slots free when it starts; a run ending
    // while one is open gives its slot back to it (whichever subscription the
    // run came on). One ending between subscriptions is counted by the next.
    const scope = yield* Effect.scope
    const grant = yield* Batcher.make(100, (granted: ReadonlyArray<void>) =>
      link.use((client) => client.Slots({ slots: granted.length })).pipe(
        Effect.as(granted.map(() => Effect.void)),
        Effect.catchAllCause(() => Effect.succeed(granted.map(() => Effect.void)))
      ))
    const giveBack = (runId: string) =>
      Effect.suspend(() => slots.needsGrant(runId) ? Effect.forkIn(grant(undefined), scope) : Effect.void).pipe(Effect.asVoid)

    while (true) {
      const client = yield* link.current
      const free = yield* Effect.map(SubscriptionRef.get(active), (n) => {
        slots.subscribed(client)
        return Math.max(0, concurrency - n)
      })
      const ended = yield* client.Runs({ slots: free }).pipe(
        Stream.runForEach((event) =>
          Effect.zipRight(
            cancelRuns(event.cancelRequested),
            Effect.forEach(event.runs, (run) => {
              slots.pushed(run.id)
              return startRun(run, giveBack(run.id))
            }, { discard: true })
          )),
        // Whatever ended the subscription (a defect included), the worker subscribes again.
        Effect.catchAllCause((cause) => Cause.isInterruptedOnly(cause) ? Effect.failCause(cause as Cause.Cause<never>) : Effect.succeed(cause))
      )
      slots.unsubscribed()
      yield* link.broken(client)
      if (ended !== undefined) {
        yield* Effect.logWarning("worker channel dropped; reconnecting").pipe(Effect.annotateLogs({ reason: describe(Cause.squash(ended)) }))
      }
    }
  }).pipe(Effect.scoped)
