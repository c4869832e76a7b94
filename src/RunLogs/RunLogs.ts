import * as Arr from "effect/Array"
import * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { Tuning } from "../Config/Tuning.js"
import { Notifications } from "../Db/Notifications.js"
import { Conflict, NotFound } from "../Contract/Domain/ApiErrors.js"
import { type RunStatus, terminalStatuses } from "../Contract/Domain/Run.js"
import type { AppendLogsPayload, AppendLogsResult, LogLine, LogPage } from "../Contract/RunLogsApi.js"
import * as AppendQueue from "./AppendQueue.js"
import type { Outcome } from "./AppendQueue.js"
import { type LogRun, type LogState, type NewLine, RunLogsRepo } from "./RunLogsRepo.js"

/** Postgres channel carrying the id of a run whose log just grew. */
export const runLogsChannel = "pts_run_logs"

/** What a follower receives: a line, then (once the run has ended and every line was sent) the end. */
export type FollowEvent =
  | { readonly _tag: "Line"; readonly line: LogLine }
  | { readonly _tag: "End"; readonly status: RunStatus }

export interface RunLogsOptions {
  /** Lines a follower reads per statement. */
  readonly pageSize: number
  /** A follower looks at least this often (the run's end, a missed wake-up). */
  readonly pollIntervalMillis: number
  /**
   * Appends are written in groups, one transaction per group, a group
   * starting at most this often per instance (see `AppendQueue`): under load
   * the log's statements, commits and NOTIFYs stay bounded whatever the
   * number of chatty workers, and leave the database to the run lifecycle.
   * A lone append (none in the last interval) goes at once.
   */
  readonly appendIntervalMillis: number
  /** Lines a group carries at most (at least one append's). */
  readonly appendGroupLines: number
}

/**
 * Run logs: the lines a worker streams while its run executes, stored whole
 * up to `RUN_LOG_MAX_BYTES` per run, read by page and followed live.
 */
export class RunLogs extends Context.Tag("RunLogs/RunLogs")<RunLogs, {
  /**
   * Appends a worker's lines to a run it holds (claimed or running; else
   * `Conflict`; another worker's run or none: `NotFound`), numbered after the
   * run's last line. Lines numbered (`sequence`) at or below what was already
   * taken are skipped as a resend; past the limit, lines are counted, not stored.
   */
  readonly append: (workerId: string, runId: string, payload: AppendLogsPayload) => Effect.Effect<AppendLogsResult, NotFound | Conflict>
  /** The run as its log's readers need it (its environment decides visibility), or undefined. */
  readonly findRun: (runId: string) => Effect.Effect<LogRun | undefined>
  /** Up to `limit` lines after `after`; `nextAfter` null once the run has ended and nothing is left. */
  readonly page: (runId: string, after: number, limit: number) => Effect.Effect<LogPage>
  /** The lines after `after` as they are stored, on any instance; ends with `End` once the run has ended. */
  readonly follow: (runId: string, after: number) => Stream.Stream<FollowEvent>
}>() {}

const isTerminal = (status: RunStatus): boolean => (terminalStatuses as ReadonlyArray<string>).includes(status)

// Postgres text holds neither NUL nor unpaired surrogates (not UTF-8): both become U+FFFD.
const unstorable = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g
const storable = (text: string): string => text.replace(unstorable, "\uFFFD")

/** The first `max` bytes of `text` as UTF-8, cut before a character that would not fit whole. */
const firstBytes = (text: string, max: number): string => {
  const bytes = Buffer.from(text, "utf8")
  if (bytes.length <= max) return text
  let end = max
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--
  return bytes.subarray(0, end).toString("utf8")
}

/** The marker line's text: how much was dropped so far. */
export const markerText = (maxBytes: number, droppedBytes: number, droppedLines: number): string =>
  `[log limit reached: RUN_LOG_MAX_BYTES is ${maxBytes} bytes; ${droppedBytes} more bytes in ${droppedLines} ` +
  `${droppedLines === 1 ? "line were" : "lines were"} dropped]`

/**
 * What an append stores, given where the log stands: resent lines left out,
 * each line costing its UTF-8 bytes and a newline, the one that crosses the
 * limit cut to fit, the rest counted, and the marker added (or rewritten).
 */
export const plan = (
  state: LogState,
  payload: AppendLogsPayload,
  now: Date,
  maxBytes: number
) => {
  const lines: Array<NewLine> = []
  let { bytes, droppedBytes, droppedLines, lastSeq, markerSeq, workerSeq } = state
  let duplicates = 0
  let dropped = 0
  const sequence = payload.sequence
  for (const [i, line] of payload.lines.entries()) {
    if (sequence !== undefined) {
      const number = sequence + i
      if (number <= workerSeq) {
        duplicates++
        continue
      }
      workerSeq = number
    }
    const text = storable(line.text)
    const cost = Buffer.byteLength(text, "utf8") + 1
    if (bytes + cost <= maxBytes) {
      lines.push({ seq: ++lastSeq, stream: line.stream, text, at: line.at ?? now })
      bytes += cost
      continue
    }
    dropped++
    droppedLines++
    const room = maxBytes - bytes
    if (room >= 1) {
      const kept = firstBytes(text, room - 1)
      lines.push({ seq: ++lastSeq, stream: line.stream, text: kept, at: line.at ?? now })
      const keptCost = Buffer.byteLength(kept, "utf8") + 1
      bytes += keptCost
      droppedBytes += cost - keptCost
    } else {
      droppedBytes += cost
    }
  }
  let rewriteMarker = false
  if (droppedLines > state.droppedLines) {
    if (markerSeq === null) {
      markerSeq = ++lastSeq
      lines.push({ seq: markerSeq, stream: "stderr", text: markerText(maxBytes, droppedBytes, droppedLines), at: now })
    } else {
      rewriteMarker = true
    }
  }
  return {
    lines,
    state: { lastSeq, bytes, droppedBytes, droppedLines, markerSeq, workerSeq } satisfies LogState,
    rewriteMarker,
    result: { stored: lines.length - (markerSeq !== state.markerSeq ? 1 : 0), duplicates, dropped } satisfies AppendLogsResult
  }
}

export const defaults: RunLogsOptions = { pageSize: 1000, pollIntervalMillis: 1000, appendIntervalMillis: 100, appendGroupLines: 20_000 }

/** Overrides `defaults` (tests; an embedding program). */
export class RunLogsConfig extends Context.Tag("RunLogs/Config")<RunLogsConfig, Partial<RunLogsOptions>>() {}

/** A follower on this instance: woken when its run's log grew elsewhere, handed the lines written here. */
interface Follower {
  readonly wake: () => void
  readonly hand: (lines: ReadonlyArray<LogLine>) => void
}

/** One append waiting for its group. */
interface Append {
  readonly workerId: string
  readonly runId: string
  readonly payload: AppendLogsPayload
  /** When the service received it: the `at` of its lines that carry none. */
  readonly receivedAt: Date
}

/** How many run ids one NOTIFY names at most (a payload is under 8,000 bytes). */
const idsPerNotify = 200

/**
 * A NOTIFY's payload: the sending instance's tag, then the run ids whose logs
 * grew. A payload without a tag (one id) is read as the id alone.
 */
export const encodeGrown = (from: string, runIds: ReadonlyArray<string>): string => `${from}|${runIds.join(",")}`
export const decodeGrown = (payload: string): { readonly from: string | undefined; readonly runIds: ReadonlyArray<string> } => {
  const bar = payload.indexOf("|")
  return bar < 0 ? { from: undefined, runIds: [payload] } : { from: payload.slice(0, bar), runIds: payload.slice(bar + 1).split(",") }
}

export const layer: Layer.Layer<RunLogs, never, RunLogsRepo | Notifications | Tuning> = Layer.scoped(
  RunLogs,
  Effect.gen(function*() {
    const repo = yield* RunLogsRepo
    const notifications = yield* Notifications
    const tuning = yield* Tuning
    const options: RunLogsOptions = { ...defaults, ...Option.getOrElse(yield* Effect.serviceOption(RunLogsConfig), () => ({})) }
    // This instance's NOTIFYs come back to it: its own followers were woken at commit already.
    const self = crypto.randomUUID()

    // This instance's followers by run.
    const followers = new Map<string, Set<Follower>>()
    const wakeLocal = (runId: string) => {
      for (const follower of followers.get(runId) ?? []) follower.wake()
    }
    const handLocal = (runId: string, lines: ReadonlyArray<LogLine>) => {
      for (const follower of followers.get(runId) ?? []) follower.hand(lines)
    }
    yield* notifications.listen(runLogsChannel).pipe(
      Stream.runForEach((payload) =>
        Effect.sync(() => {
          const { from, runIds } = decodeGrown(payload)
          if (from !== self) runIds.forEach(wakeLocal)
        })),
      Effect.tapErrorCause((cause) => Effect.logWarning("LISTEN for run logs failed; retrying", cause)),
      Effect.retry(Schedule.spaced("1 second")),
      Effect.annotateLogs({ service: "RunLogs/RunLogs" }),
      Effect.forkScoped
    )

    /** Followers on other instances: one NOTIFY per group (not inside its transaction, which then commits without the NOTIFY queue's lock). */
    const announce = (runIds: ReadonlyArray<string>) =>
      Effect.forEach(Arr.chunksOf(runIds, idsPerNotify), (ids) => notifications.notify(runLogsChannel, encodeGrown(self, ids)), { discard: true }).pipe(
        // Not the append's failure: its lines are stored; followers elsewhere find them at their next look.
        Effect.catchAllCause((cause) => Effect.logWarning("NOTIFY for run logs failed", cause))
      )

    /**
     * One group of appends in one transaction: their runs held against a
     * transition, the states of their logs locked, the lines of all of them
     * inserted by one statement. Two appends to one run in a group are
     * planned one after the other.
     */
    const writeGroup = (appends: ReadonlyArray<Append>) =>
      Effect.gen(function*() {
        const written = yield* repo.withTransaction(Effect.gen(function*() {
          const { locked, runs } = yield* repo.lockRuns(Arr.dedupe(appends.map((a) => a.runId)))
          const refusals = appends.map((append): Outcome<AppendLogsResult, NotFound | Conflict> | undefined => {
            if (locked.has(append.runId)) return "Again"
            const run = runs.get(append.runId)
            if (run === undefined || run.workerId !== append.workerId) return Exit.fail(NotFound.of("run"))
            if (run.status !== "claimed" && run.status !== "running") {
              return Exit.fail(new Conflict({ error: `cannot write logs: run is ${run.status}` }))
            }
            return undefined
          })
          const accepted = appends.filter((_, i) => refusals[i] === undefined)
          if (accepted.length === 0) return { outcomes: refusals, batches: [] }
          const states = yield* repo.lockStates(Arr.dedupe(accepted.map((a) => a.runId)).sort())
          const batches: Array<{ readonly runId: string; readonly lines: ReadonlyArray<NewLine> }> = []
          const markers = new Map<string, { readonly seq: number; readonly text: string }>()
          const results = new Map<Append, AppendLogsResult>()
          for (const append of accepted) {
            const planned = plan(states.get(append.runId)!, append.payload, append.receivedAt, tuning.runLogMaxBytes)
            states.set(append.runId, planned.state)
            if (planned.lines.length > 0) batches.push({ runId: append.runId, lines: planned.lines })
            if (planned.rewriteMarker && planned.state.markerSeq !== null) {
              markers.set(append.runId, {
                seq: planned.state.markerSeq,
                text: markerText(tuning.runLogMaxBytes, planned.state.droppedBytes, planned.state.droppedLines)
              })
            }
            results.set(append, planned.result)
          }
          yield* repo.insertLines(batches)
          for (const [runId, marker] of markers) yield* repo.rewriteLine(runId, marker.seq, marker.text)
          yield* repo.saveStates([...states])
          return {
            outcomes: appends.map((append, i) => refusals[i] ?? Exit.succeed(results.get(append)!)),
            batches
          }
        }))
        // Committed: this instance's followers get the lines as they are, the others are told to read them.
        for (const batch of written.batches) handLocal(batch.runId, batch.lines)
        const grown = Arr.dedupe(written.batches.map((batch) => batch.runId))
        if (grown.length > 0) yield* announce(grown)
        return written.outcomes as ReadonlyArray<Outcome<AppendLogsResult, NotFound | Conflict>>
      }).pipe(
        Effect.catchTag("SqlError", Effect.die),
        Effect.withSpan("RunLogs.appendGroup", { attributes: { appends: appends.length } })
      )

    const enqueue = yield* AppendQueue.make<Append, AppendLogsResult, NotFound | Conflict>({
      intervalMillis: options.appendIntervalMillis,
      maxWeight: options.appendGroupLines,
      weight: (append) => append.payload.lines.length,
      run: writeGroup
    })

    const append = (workerId: string, runId: string, payload: AppendLogsPayload) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => enqueue({ workerId, runId, payload, receivedAt: new Date(now) })).pipe(
        Effect.withSpan("RunLogs.append", { attributes: { runId } })
      )

    const findRun = (runId: string) => Effect.orDie(repo.findRun(runId))

    const page = (runId: string, after: number, limit: number) =>
      Effect.gen(function*() {
        // The run's status first: a line stored before it ended is then surely in the page.
        const run = yield* repo.findRun(runId)
        const items = yield* repo.page(runId, after, limit)
        const last = items.at(-1)?.seq ?? after
        const ended = run === undefined || isTerminal(run.status)
        return { items, nextAfter: ended && items.length < limit ? null : last } satisfies LogPage
      }).pipe(Effect.orDie, Effect.withSpan("RunLogs.page"))

    const register = (runId: string, follower: Follower): Effect.Effect<void, never, Scope.Scope> =>
      Effect.acquireRelease(
        Effect.sync(() => {
          const set = followers.get(runId) ?? new Set()
          set.add(follower)
          followers.set(runId, set)
        }),
        () =>
          Effect.sync(() => {
            const set = followers.get(runId)
            set?.delete(follower)
            if (set?.size === 0) followers.delete(runId)
          })
      )

    const follow = (runId: string, after: number): Stream.Stream<FollowEvent> =>
      Stream.unwrapScoped(Effect.gen(function*() {
        let signal = Deferred.unsafeMake<void>(FiberId.none)
        let cursor = after
        // Lines committed by this instance's appends, handed over as they were written: seq cursor + 1, + 2, …
        let handed: Array<LogLine> = []
        // Lines may be stored that were not handed over (another instance's, a hand-over that did not fit): read them.
        let unread = true
        yield* register(runId, {
          wake: () => {
            unread = true
            Deferred.unsafeDone(signal, Exit.void)
          },
          hand: (lines) => {
            const next = (handed.at(-1)?.seq ?? cursor) + 1
            if (lines[0]?.seq === next && handed.length + lines.length <= options.pageSize) handed.push(...lines)
            else unread = true
            Deferred.unsafeDone(signal, Exit.void)
          }
        })
        let ended: RunStatus | undefined
        let done = false
        // Caught up with what was stored: the next pull waits for a wake-up (or the poll) before it reads.
        let caughtUp = false
        const lines = (rows: ReadonlyArray<LogLine>) => {
          cursor = rows.at(-1)!.seq
          return Chunk.fromIterable(rows.map((line): FollowEvent => ({ _tag: "Line", line })))
        }
        // Pulled as the client reads: a slow follower slows its own reads, and holds no more than a page.
        const pull: Effect.Effect<Chunk.Chunk<FollowEvent>, Option.Option<never>> = Effect.gen(function*() {
          if (done) return yield* Effect.fail(Option.none())
          while (true) {
            if (caughtUp) {
              caughtUp = false
              // Nothing for a while: look anyway (the run's end, a missed wake-up).
              if (Option.isNone(yield* Deferred.await(signal).pipe(Effect.timeoutOption(options.pollIntervalMillis)))) unread = true
            }
            // A fresh signal before taking or reading: a wake-up meanwhile is not lost.
            signal = Deferred.unsafeMake<void>(FiberId.none)
            while (handed.length > 0 && handed[0]!.seq <= cursor) handed.shift()
            if (!unread && handed.length > 0) {
              const taken = handed
              handed = []
              caughtUp = true
              return lines(taken)
            }
            if (!unread && ended === undefined) {
              caughtUp = true
              continue
            }
            unread = false
            const rows = yield* Effect.orDie(repo.page(runId, cursor, options.pageSize))
            if (rows.length > 0) {
              caughtUp = rows.length < options.pageSize
              // A page's worth: read on, more may be stored.
              if (!caughtUp) unread = true
              return lines(rows)
            }
            if (ended !== undefined) {
              done = true
              return Chunk.of<FollowEvent>({ _tag: "End", status: ended })
            }
            const run = yield* Effect.orDie(repo.findRun(runId))
            // Deleted meanwhile (retention, its environment): its log went with it.
            if (run === undefined) return yield* Effect.fail(Option.none())
            if (isTerminal(run.status)) {
              // Read once more: lines committed before the run ended are visible now.
              ended = run.status
              unread = true
              continue
            }
            caughtUp = true
          }
        })
        return Stream.repeatEffectChunkOption(pull)
      }))

    return RunLogs.of({ append, findRun, page, follow })
  })
)

/** The service with its repository; needs a `SqlClient`, `Notifications` and `Tuning`. */
export const layerWithRepo = layer.pipe(Layer.provide(RunLogsRepo.Default))
