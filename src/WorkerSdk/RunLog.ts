import * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import * as Queue from "effect/Queue"
import type * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import { Conflict, NotFound } from "../Contract/Domain/ApiErrors.js"
import { type LogStream, maxLineChars, maxLinesPerCall } from "../Contract/RunLogsApi.js"
import type { WorkerCalls } from "./Calls.js"
import { describe, retryTransient } from "./Transient.js"

/**
 * The log of the run a handler is executing: what it writes here is streamed
 * to the service while the run executes (`GET /runs/{id}/logs` reads it,
 * live). Nothing is captured implicitly: only what is written here.
 *
 * ```ts
 * handler: (run) => Effect.gen(function*() {
 *   yield* RunLog.info(`building ${run.id}`)
 *   yield* RunLog.error("warning: cache miss")
 *   return { status: "succeeded" }
 * })
 * ```
 */
export class RunLog extends Context.Tag("pipeline-trigger-service/worker/RunLog")<RunLog, {
  /**
   * Adds text to the run's log as lines of `stream` (split at newlines, a line
   * over 65,536 characters continued on the next). Returns at once; the lines
   * go out in batches. Only when 10,000 lines wait unsent does it wait for room.
   */
  readonly write: (stream: LogStream, text: string) => Effect.Effect<void>
}>() {
  /** Writes `text` to the run's log as stdout. */
  static readonly info = (text: string): Effect.Effect<void, never, RunLog> => Effect.flatMap(RunLog, (log) => log.write("stdout", text))
  /** Writes `text` to the run's log as stderr. */
  static readonly error = (text: string): Effect.Effect<void, never, RunLog> => Effect.flatMap(RunLog, (log) => log.write("stderr", text))
}

/** Lines waiting to be sent, at most: past it a writer waits (the memory bound of a chatty run). */
export const bufferedLines = 10_000

/**
 * A run's log calls start at most this often (unless a full call's lines
 * wait, or a flush does). What a call costs the service is mostly the call,
 * not its lines: 10 lines or 100 cost about the same (the run-logs bench), so
 * a chatty command sends fewer, larger calls. A line written after a quiet
 * spell goes at once; the cost is at most this much more delay for a line of
 * a chatty run.
 */
export const sendIntervalMillis = 200

const liveClock = Clock.make()

type Entry =
  | { readonly _tag: "Line"; readonly stream: LogStream; readonly text: string; readonly at: Date }
  | { readonly _tag: "Flush"; readonly done: Deferred.Deferred<void> }

/** `text` as log lines: split at newlines (one trailing newline ends the last line), each at most `maxLineChars`. */
export const toLines = (text: string): ReadonlyArray<string> => {
  const parts = text.split(/\r?\n/)
  if (parts.length > 1 && parts.at(-1) === "") parts.pop()
  return parts.flatMap((part) => {
    if (part.length <= maxLineChars) return [part]
    const out: Array<string> = []
    for (let i = 0; i < part.length; i += maxLineChars) out.push(part.slice(i, i + maxLineChars))
    return out
  })
}

/** A run's log on the worker side: its `RunLog` service, and `flush` to wait until what was written is stored. */
export interface RunLogShipper {
  readonly log: Context.Tag.Service<RunLog>
  /** Waits until every line written so far was sent (or given up). */
  readonly flush: Effect.Effect<void>
}

/**
 * Sends one run's log lines in batches: whatever was written since the
 * previous batch goes out together (up to 1,000 lines a call), a call
 * starting at most every `sendIntervalMillis`, so a chatty command costs at
 * most five calls a second, and a lone line goes out at once. Each batch is numbered (`sequence`), so one resent after a
 * lost answer is stored once. Transient failures are retried; once the
 * service refuses the run's lines (the run ended, or is no longer this
 * worker's), the rest is dropped.
 */
export const make = (
  calls: WorkerCalls,
  runId: string,
  schedule: Schedule.Schedule<unknown, unknown>,
  intervalMillis: number = sendIntervalMillis
): Effect.Effect<RunLogShipper, never, Scope.Scope> =>
  Effect.gen(function*() {
    // The queue and its sender exist from the first line on: most runs write none, and a fiber, a
    // queue and a flush through it per run were a good part of a worker's cost per run.
    const scope = yield* Effect.scope
    let queue: Queue.Queue<Entry> | undefined
    let sequence = 1
    let refused = false
    // When the last call started, on the wall clock (the pace is real time, whatever clock the worker runs on).
    let lastSend = 0
    // Completed by `flush`: a flush does not wait out the pace.
    let hurry = Deferred.unsafeMake<void>(FiberId.none)

    const send = (lines: ReadonlyArray<Extract<Entry, { _tag: "Line" }>>) =>
      Effect.suspend(() => {
        if (refused || lines.length === 0) return Effect.void
        const payload = { sequence, lines: lines.map(({ at, stream, text }) => ({ stream, text, at })) }
        return retryTransient(calls.logs(runId, payload).pipe(Effect.timeout("30 seconds")), "sending log lines", schedule).pipe(
          Effect.tap(() => Effect.sync(() => { sequence += lines.length })),
          Effect.catchAll((error) => {
            if (error instanceof NotFound || error instanceof Conflict) refused = true
            return Effect.logWarning(refused ? "log lines refused: the rest of the run's log is dropped" : "log lines dropped").pipe(
              Effect.annotateLogs({ reason: describe(error), lines: lines.length })
            )
          }),
          Effect.asVoid
        )
      })

    const pace = Effect.suspend(() => {
      const wait = lastSend + intervalMillis - Date.now()
      return wait > 0 ? Effect.raceFirst(Effect.withClock(Effect.sleep(wait), liveClock), Deferred.await(hurry)) : Effect.void
    })

    const shipping = (queue: Queue.Queue<Entry>) => Effect.gen(function*() {
      const first = yield* Queue.take(queue)
      if (first._tag === "Line" && (yield* Queue.size(queue)) < maxLinesPerCall - 1) yield* pace
      hurry = Deferred.unsafeMake<void>(FiberId.none)
      lastSend = Date.now()
      const taken = [first, ...Chunk.toReadonlyArray(yield* Queue.takeUpTo(queue, maxLinesPerCall - 1))]
      const lines = taken.filter((entry): entry is Extract<Entry, { _tag: "Line" }> => entry._tag === "Line")
      yield* send(lines)
      for (const entry of taken) if (entry._tag === "Flush") yield* Deferred.succeed(entry.done, undefined)
    }).pipe(
      Effect.forever,
      // Made while the run processor holds off interruption: the run's scope must still be able to stop it.
      Effect.interruptible,
      Effect.forkIn(scope)
    )

    const started = Effect.suspend(() => {
      if (queue !== undefined) return Effect.succeed(queue)
      // Made synchronously, so two first lines written at once share one queue.
      const made = Effect.runSync(Queue.bounded<Entry>(bufferedLines))
      queue = made
      return Effect.zipRight(Scope.addFinalizer(scope, Queue.shutdown(made)), Effect.as(shipping(made), made))
    })

    const write = (stream: LogStream, text: string) =>
      Effect.gen(function*() {
        const at = new Date(yield* Clock.currentTimeMillis)
        yield* Queue.offerAll(yield* started, toLines(text).map((line): Entry => ({ _tag: "Line", stream, text: line, at })))
      })

    // Nothing written: nothing to wait for.
    const flush = Effect.gen(function*() {
      if (queue === undefined) return
      const done = yield* Deferred.make<void>()
      yield* Queue.offer(queue, { _tag: "Flush", done })
      Deferred.unsafeDone(hurry, Exit.void)
      yield* Deferred.await(done)
    })

    return { log: RunLog.of({ write }), flush }
  })
