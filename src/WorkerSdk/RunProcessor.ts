import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import { RunOutput } from "../Contract/Domain/Run.js"
import { costPattern } from "../Contract/Domain/Decimal.js"
import { Conflict, NotFound } from "../Contract/Domain/ApiErrors.js"
import type { CompletePayload, WorkerCalls } from "./Calls.js"
import type { Completions } from "./Completions.js"
import { fatalUnauthorized, NonRetryable, WorkerUnauthorized } from "./Errors.js"
import { describe, retryTransient } from "./Transient.js"
import type { RunResult, WorkerOptions, WorkerRun } from "./Types.js"
import * as RunLogShipping from "./RunLog.js"
import { RunLog, type RunLogShipper } from "./RunLog.js"

/** How long a run's unsent log lines may hold up its complete. */
const logFlushTimeout = "10 seconds"

/**
 * One run on the worker's side: claim (unless the poll claimed it), start,
 * the handler raced against heartbeats and the run's timeout, then complete.
 */

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

const isOutput = Schema.is(RunOutput)

/** How one run ended on this side, before the `complete` call. */
type Outcome =
  | { readonly _tag: "Done"; readonly result: RunResult }
  | { readonly _tag: "Lost" }
  | { readonly _tag: "TimedOut" }
  | { readonly _tag: "Cancelled" }

/** How one branch of a run's race ends: an outcome, or what is raised once the race is over. */
type Ending =
  | Outcome
  // The heartbeat's token was refused: the worker stops.
  | { readonly _tag: "Refused"; readonly error: WorkerUnauthorized }
  // The handler was interrupted: as a shutdown is.
  | { readonly _tag: "Interrupted" }

class RunLost {
  readonly _tag = "RunLost"
}

/** The service asked for the run to stop (`POST /runs/{id}/cancel`). */
class RunCancelled {
  readonly _tag = "RunCancelled"
}

/**
 * How a worker acknowledges a cancel: a complete, whose status the service
 * ignores (any complete after a cancel request is recorded `cancelled`,
 * faultClass `none`); `failed` keeps this note as the run's errorMessage.
 */
export const cancelledResult: RunResult = { status: "failed", stderr: "cancelled: the handler was interrupted", faultClass: "client" }

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

/** Requests a run transition: true once done; false when refused (404/409: the run is no longer ours to move). */
export const transition = (
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

/** How many times a complete is retried after transient failures. */
export const completeRetries = (schedule: Schedule.Schedule<unknown, unknown>) =>
  schedule.pipe(Schedule.intersect(Schedule.recurs(8)), Schedule.asVoid)

export const makeRunProcessor = <E, R>(
  /** How the steps reach the service: REST calls or the channel. */
  calls: WorkerCalls,
  options: WorkerOptions<E, R>,
  fraction: number,
  schedule: Schedule.Schedule<unknown, unknown>,
  /** Coalesces completes into batched calls (with `claimOnPoll`); without it, each run completes on its own. */
  completions?: Completions | undefined
) =>
(
  run: WorkerRun,
  /** Completes when the worker's poll reports a cancel request for this run (the heartbeat reports it too). */
  cancelRequested: Effect.Effect<void> = Effect.never
): Effect.Effect<void, WorkerUnauthorized, Exclude<R, RunLog>> => {
  // At shutdown a run completes on its own with a short retry schedule, never waiting behind a batch.
  /** `recorded`: the status the service gives the run, when it is not the result's (a cancel is recorded `cancelled`). */
  const complete = (result: RunResult, retries?: Schedule.Schedule<unknown, unknown>, recorded: string = result.status) => {
    // A malformed cost would fail the request's encoding, and so the whole
    // result: it is left out (and said so), the rest is recorded.
    const cost = result.costUsd !== undefined && costPattern.test(result.costUsd) ? result.costUsd : undefined
    // So is an output that is no JSON value of at most 1 MiB.
    const output = result.output !== undefined && isOutput(result.output) ? result.output : undefined
    const payload: CompletePayload = {
      status: result.status,
      ...(result.stdout !== undefined ? { stdout: firstChars(result.stdout, stdoutChars) } : {}),
      ...(result.stderr !== undefined ? { stderr: firstBytes(result.stderr, stderrBytes) } : {}),
      ...(cost !== undefined ? { costUsd: cost } : {}),
      ...(result.status === "failed" ? { faultClass: result.faultClass ?? "client" } : {}),
      ...(output !== undefined ? { output } : {}),
      ...(result.status === "failed" && result.retryable === false ? { retryable: false } : {})
    }
    const warned = Effect.zipRight(
      cost === result.costUsd
        ? Effect.void
        : Effect.logWarning("costUsd left out: not a decimal string with up to 12 integer and 8 fraction digits"),
      output === result.output ? Effect.void : Effect.logWarning("output left out: not a JSON value of at most 1 MiB")
    )
    const sent = Effect.zipRight(warned, completions !== undefined && retries === undefined
      ? completions.complete(run.id, payload)
      : transition(calls.complete(run.id, payload), "completing the run", retries ?? completeRetries(schedule)))
    return Effect.tap(sent, (done) => done ? Effect.logInfo("run completed").pipe(Effect.annotateLogs({ status: recorded })) : Effect.void)
  }

  const heartbeatEvery = Duration.millis(Math.max(500, run.trigger.heartbeatTimeoutSeconds * 1000 * fraction))
  // A few quick retries: a heartbeat that waits for the full backoff would come too late anyway.
  const heartbeatRetries = Schedule.exponential("200 millis").pipe(Schedule.intersect(Schedule.recurs(3)), Schedule.asVoid)
  const heartbeat: Effect.Effect<never, RunLost | RunCancelled | WorkerUnauthorized> = Effect.sleep(heartbeatEvery).pipe(
    Effect.zipRight(
      retryTransient(calls.heartbeat(run.id).pipe(Effect.timeout("10 seconds")), "heartbeat", heartbeatRetries).pipe(
        fatalUnauthorized,
        // The answer names a cancel request: stop the handler and acknowledge.
        Effect.flatMap(({ run }) => run.cancelRequestedAt === null ? Effect.void : Effect.fail(new RunCancelled())),
        Effect.catchAll((error): Effect.Effect<void, RunLost | RunCancelled | WorkerUnauthorized> => {
          if (error instanceof WorkerUnauthorized || error instanceof RunCancelled) return Effect.fail(error)
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

  // One race of four fibers, each ending in an outcome: the handler, its
  // timeout, the heartbeats and the cancel request (nested races with a
  // timeout inside took six fibers a run). The first outcome wins and the
  // others are interrupted; none fails, so the first to end is the first to win.
  const execute = (log: RunLogShipper): Effect.Effect<Outcome, WorkerUnauthorized, Exclude<R, RunLog>> =>
    Effect.flatMap(
      Effect.raceAll<Effect.Effect<Ending, never, Exclude<R, RunLog>>>([
        options.handler(run).pipe(
          Effect.provideService(RunLog, log.log),
          Effect.map((result): Outcome => ({ _tag: "Done", result })),
          Effect.catchAllCause((cause) =>
            Cause.isInterruptedOnly(cause)
              ? Effect.succeed<Ending>({ _tag: "Interrupted" })
              : Effect.succeed<Ending>({
                _tag: "Done",
                result: {
                  status: "failed",
                  stderr: messageOf(cause),
                  faultClass: Option.isSome(Cause.failureOption(cause)) ? "client" : "infra",
                  // A handler that fails with `NonRetryable` ends the run's lineage: no retry will fix it.
                  retryable: !Option.exists(Cause.failureOption(cause), (error) => error instanceof NonRetryable)
                }
              })
          )
        ),
        Effect.as(Effect.sleep(Duration.seconds(run.trigger.timeoutSeconds)), { _tag: "TimedOut" } as Ending),
        heartbeat.pipe(
          Effect.catchAll((error): Effect.Effect<Ending> => {
            if (error instanceof RunLost) return Effect.succeed({ _tag: "Lost" })
            if (error instanceof RunCancelled) return Effect.succeed({ _tag: "Cancelled" })
            return Effect.succeed({ _tag: "Refused", error })
          })
        ),
        Effect.as(cancelRequested, { _tag: "Cancelled" } as Ending)
      ]),
      (ending): Effect.Effect<Outcome, WorkerUnauthorized> =>
        ending._tag === "Refused" ? Effect.fail(ending.error) : ending._tag === "Interrupted" ? Effect.interrupt : Effect.succeed(ending)
    )

  const shutdownFailure: RunResult = { status: "failed", stderr: "the worker shut down before the run finished", faultClass: "infra" }
  const shutdownRetries = Schedule.exponential("200 millis").pipe(Schedule.intersect(Schedule.recurs(2)), Schedule.asVoid)

  // Everything outside `restore` is uninterruptible: once a run is ours, it is
  // always completed (or knowingly left to the service), even on shutdown.
  return Effect.uninterruptibleMask((restore) =>
    Effect.gen(function*() {
      const claimedExit = yield* restore(
        // A claim-on-poll hands runs over claimed, or running with `start=true`: the status says which steps are left.
        run.status !== "assigned" ? Effect.succeed(true) : transition(calls.claim(run.id), "claiming the run", schedule)
      ).pipe(Effect.exit)
      if (Exit.isFailure(claimedExit)) {
        if (Cause.isInterruptedOnly(claimedExit.cause)) return
        return yield* Effect.failCause(claimedExit.cause)
      }
      if (!claimedExit.value) return
      const startedExit = yield* restore(
        run.status === "running" ? Effect.succeed(true) : transition(calls.start(run.id), "starting the run", schedule)
      ).pipe(Effect.exit)
      if (Exit.isFailure(startedExit)) {
        if (!Cause.isInterruptedOnly(startedExit.cause)) return yield* Effect.failCause(startedExit.cause)
        yield* complete(shutdownFailure, shutdownRetries)
        return
      }
      if (!startedExit.value) return
      yield* Effect.logInfo("run started")
      const log = yield* RunLogShipping.make(calls, run.id, schedule)
      const outcome = yield* restore(execute(log)).pipe(Effect.exit)
      // The lines written reach the service before the run ends there (it refuses lines of an ended run).
      // Not at shutdown: an interrupted worker goes straight on to complete the run.
      yield* restore(log.flush.pipe(Effect.timeoutOption(logFlushTimeout))).pipe(Effect.exit)
      if (Exit.isFailure(outcome)) {
        if (!Cause.isInterruptedOnly(outcome.cause)) return yield* Effect.failCause(outcome.cause)
        yield* complete(shutdownFailure, shutdownRetries)
        return
      }
      switch (outcome.value._tag) {
        case "Done":
          yield* complete(outcome.value.result)
          return
        case "Cancelled":
          yield* Effect.logInfo("cancel requested: handler interrupted")
          // The service records any complete after a cancel request as cancelled: the log says so, not "failed".
          yield* complete(cancelledResult, undefined, "cancelled")
          return
        case "Lost":
          return yield* Effect.logWarning("the service ended the run before it finished (timed out or cancelled); result dropped")
        case "TimedOut":
          return yield* Effect.logWarning("run passed its timeoutSeconds: stopped; the service records it timed_out").pipe(
            Effect.annotateLogs({ timeoutSeconds: run.trigger.timeoutSeconds })
          )
      }
    })
  ).pipe(Effect.scoped, Effect.annotateLogs({ runId: run.id, triggerId: run.triggerId }))
}
