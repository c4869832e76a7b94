import * as SqlClient from "@effect/sql/SqlClient"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { Notifications } from "../Db/Notifications.js"
import { type Run, type RunRow, toRun } from "../Contract/Domain/Run.js"
import * as Metrics from "../Observability/Metrics.js"

/**
 * How runs are followed. `RunFeed`: every transition of an environment, from
 * the stored timeline (`run_events`), on any instance, resumable by cursor.
 * `RunEvents`: the terminal runs of this instance, in process, for an
 * embedding program and the metrics of ended runs.
 */

/** Postgres channel carrying ids of environments whose runs just moved (comma-separated). */
export const runEventsChannel = "pts_run_events"

/** One run transition of the live feed: its resumable cursor and the run as it is when read. */
export interface FeedEvent {
  /** The `run_events` id: pass it back as `after` (SSE: `Last-Event-ID`) to resume after this event. */
  readonly cursor: string
  readonly run: Run
}

/** The subscriber did not take its events in time: it is dropped, and may resume from its last cursor. */
export class SlowSubscriber extends Data.TaggedError("SlowSubscriber")<{ readonly cursor: string | undefined }> {
  get message() {
    return "subscriber dropped: it did not keep up with its events"
  }
}

export interface RunFeedOptions {
  /** Events read ahead for one subscriber, at most: its memory bound. */
  readonly capacity: number
  /** A subscriber whose read-ahead stays full this long is dropped. */
  readonly dropAfterMillis: number
  /** Subscribers look for new rows at least this often (a missed wake-up, a transaction that was still open). */
  readonly pollIntervalMillis: number
  /** Rows read per statement. */
  readonly pageSize: number
  /** At most one NOTIFY to other instances per this interval (this instance's subscribers are woken at once). */
  readonly notifyIntervalMillis: number
}

export const defaults: RunFeedOptions = {
  capacity: 256,
  dropAfterMillis: 30_000,
  pollIntervalMillis: 1_000,
  pageSize: 200,
  notifyIntervalMillis: 50
}

/** Overrides `defaults` (tests; an embedding program). */
export class RunFeedConfig extends Context.Tag("Scheduler/RunFeedConfig")<RunFeedConfig, Partial<RunFeedOptions>>() {}

/** How soon a subscriber looks again at rows an open transaction held back. */
const heldBackRetryMillis = 50

interface Cursor {
  readonly tx: string
  readonly id: string
}

interface FeedRow extends RunRow {
  readonly cursor: string
  readonly tx: string
}

// Each payload stays below Postgres's 8000-byte NOTIFY limit.
const payloads = (ids: ReadonlyArray<string>): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (let i = 0; i < ids.length; i += 150) out.push(ids.slice(i, i + 150).join(","))
  return out
}

export declare namespace RunFeed {
  /** The live feed of run transitions, per environment. */
  export interface Service {
    /** Runs of these environments moved (after the statement committed): subscribers everywhere look now. */
    readonly announce: (environmentIds: Iterable<string>) => Effect.Effect<void>
    /** Follows the environment's transitions from `after` (a cursor) or from now, for the scope. */
    readonly subscribe: (
      environmentId: string,
      options?: { readonly after?: string | undefined }
    ) => Effect.Effect<Stream.Stream<FeedEvent, SlowSubscriber>, never, Scope.Scope>
  }
}

/**
 * Live run transitions per environment, read from the stored timeline
 * (`run_events`), so every instance sees every transition, whoever made it,
 * and a subscriber resumes from a cursor without loss.
 *
 * Rows get their ids before they commit, so a smaller id can become visible
 * after a larger one. A subscriber therefore reads only rows whose writing
 * transactions have all finished (`tx` below the snapshot's xmin) in
 * `(tx, id)` order: nothing can later appear behind its position. (An open
 * transaction anywhere delays the feed until it ends; it loses nothing.)
 *
 * Wake-ups: `announce` (called after each transition statement) wakes this
 * instance's subscribers of those environments at once and, coalesced, sends
 * one NOTIFY carrying only environment ids to the others. Subscribers also
 * look every `pollIntervalMillis`, so a statement nobody announced is seen
 * too. Memory: each subscriber reads ahead at most `capacity` events; one
 * that leaves them untaken for `dropAfterMillis` is dropped (`SlowSubscriber`).
 */
export class RunFeed extends Effect.Service<RunFeed>()("Scheduler/RunFeed", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const notifications = yield* Notifications
    const options: RunFeedOptions = { ...defaults, ...Option.getOrElse(yield* Effect.serviceOption(RunFeedConfig), () => ({})) }

    // Completed as the app shuts down: every subscriber's stream ends, so its
    // connection can close instead of holding the server's shutdown open.
    const closing = yield* Deferred.make<void>()
    yield* Effect.addFinalizer(() => Deferred.succeed(closing, undefined))

    // This instance's subscribers by environment: each a function that wakes its reader.
    const subscribers = new Map<string, Set<() => void>>()
    const wakeLocal = (environmentId: string) => {
      for (const wake of subscribers.get(environmentId) ?? []) wake()
    }

    // Environments announced since the last NOTIFY, sent by one fiber at most every notifyIntervalMillis.
    const pending = new Set<string>()
    const kick = yield* Effect.acquireRelease(Queue.sliding<void>(1), Queue.shutdown)
    yield* Effect.gen(function*() {
      yield* Queue.take(kick)
      const ids = [...pending]
      pending.clear()
      // pg_notify as the other channels are sent (in SQL): every backend's LISTEN receives it.
      yield* Effect.forEach(payloads(ids), (payload) => sql`SELECT pg_notify(${runEventsChannel}, ${payload})`, { discard: true }).pipe(
        Effect.catchAllCause((cause) => Effect.logWarning("NOTIFY of run events failed", cause))
      )
      yield* Effect.sleep(options.notifyIntervalMillis)
    }).pipe(Effect.forever, Effect.forkScoped)

    yield* notifications.listen(runEventsChannel).pipe(
      Stream.runForEach((payload) => Effect.sync(() => payload.split(",").forEach(wakeLocal))),
      Effect.tapErrorCause((cause) => Effect.logWarning("LISTEN for run events failed; retrying", cause)),
      Effect.retry(Schedule.spaced("1 second")),
      Effect.annotateLogs({ service: "Scheduler/RunFeed" }),
      Effect.forkScoped
    )

    /** Runs of these environments moved (after the statement has committed): subscribers everywhere look now. */
    const announce = (environmentIds: Iterable<string>): Effect.Effect<void> =>
      Effect.suspend(() => {
        let any = false
        for (const id of environmentIds) {
          any = true
          pending.add(id)
          wakeLocal(id)
        }
        return any ? Queue.offer(kick, undefined) : Effect.void
      })

    // Where a subscriber without a cursor starts: after every transaction finished by now.
    const now = sql<{ tx: string }>`SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS tx`.pipe(
      Effect.map((rows): Cursor => ({ tx: rows[0]!.tx, id: "0" }))
    )

    const startAt = (environmentId: string, after: string | undefined) =>
      Effect.gen(function*() {
        if (after === undefined || !/^\d{1,18}$/.test(after)) return yield* now
        const rows = yield* sql<{ tx: string }>`
          SELECT tx::text AS tx FROM run_events WHERE id = ${after}::bigint AND environment_id = ${environmentId}`
        if (rows[0] !== undefined) return { tx: rows[0].tx, id: after }
        // Not an event of this environment (or deleted by retention): from now on.
        yield* Effect.logInfo("unknown run events cursor; following from now").pipe(Effect.annotateLogs({ environmentId, after }))
        return yield* now
      }).pipe(Effect.orDie)

    const read = (environmentId: string, from: Cursor) =>
      sql<FeedRow>`
        SELECT e.id::text AS cursor, e.tx::text AS tx, r.*
        FROM run_events e JOIN runs r ON r.id = e.run_id
        WHERE e.environment_id = ${environmentId} AND (e.tx, e.id) > (${from.tx}::xid8, ${from.id}::bigint)
          AND e.tx < pg_snapshot_xmin(pg_current_snapshot())
        ORDER BY e.tx, e.id
        LIMIT ${options.pageSize}`.pipe(Effect.orDie)

    // Committed rows past the cursor that an open transaction still holds back: look again soon.
    const heldBack = (environmentId: string, from: Cursor) =>
      sql<{ held: boolean }>`
        SELECT EXISTS (
          SELECT 1 FROM run_events e
          WHERE e.environment_id = ${environmentId} AND (e.tx, e.id) > (${from.tx}::xid8, ${from.id}::bigint)
            AND e.tx >= pg_snapshot_xmin(pg_current_snapshot())
        ) AS held`.pipe(Effect.map((rows) => rows[0]?.held === true), Effect.orDie)

    /**
     * Follows the environment's run transitions, from `after` (a cursor an
     * earlier event carried; resumes with the next event) or else from now.
     * The stream fails with `SlowSubscriber` when the subscriber falls
     * `capacity` events behind for `dropAfterMillis`; the subscription ends
     * with the scope, and the stream ends when the app shuts down.
     */
    const subscribe = (
      environmentId: string,
      subscribeOptions: { readonly after?: string | undefined } = {}
    ): Effect.Effect<Stream.Stream<FeedEvent, SlowSubscriber>, never, Scope.Scope> =>
      Effect.gen(function*() {
        let cursor = yield* startAt(environmentId, subscribeOptions.after)
        const out = yield* Effect.acquireRelease(Queue.bounded<FeedEvent>(options.capacity), Queue.shutdown)
        const dropped = yield* Deferred.make<never, SlowSubscriber>()
        let signal = Deferred.unsafeMake<void>(FiberId.none)
        const wake = () => Deferred.unsafeDone(signal, Exit.void)
        yield* Effect.acquireRelease(
          Effect.sync(() => {
            const set = subscribers.get(environmentId) ?? new Set()
            set.add(wake)
            subscribers.set(environmentId, set)
          }),
          () =>
            Effect.sync(() => {
              const set = subscribers.get(environmentId)
              set?.delete(wake)
              if (set?.size === 0) subscribers.delete(environmentId)
            })
        )
        let delivered: string | undefined = subscribeOptions.after
        yield* Effect.gen(function*() {
          while (true) {
            // A fresh signal before reading: a wake-up during the read is not lost.
            signal = Deferred.unsafeMake<void>(FiberId.none)
            const rows = yield* read(environmentId, cursor)
            for (const row of rows) {
              const offered = yield* Queue.offer(out, { cursor: row.cursor, run: toRun(row) }).pipe(
                Effect.timeoutOption(options.dropAfterMillis)
              )
              if (Option.isNone(offered)) {
                yield* Effect.logInfo("slow run events subscriber dropped").pipe(Effect.annotateLogs({ environmentId }))
                return yield* Deferred.fail(dropped, new SlowSubscriber({ cursor: delivered }))
              }
              delivered = row.cursor
              cursor = { tx: row.tx, id: row.cursor }
            }
            if (rows.length < options.pageSize) {
              if (yield* heldBack(environmentId, cursor)) yield* Effect.sleep(heldBackRetryMillis)
              else yield* Deferred.await(signal).pipe(Effect.timeoutOption(options.pollIntervalMillis))
            }
          }
        }).pipe(
          Effect.annotateLogs({ service: "Scheduler/RunFeed" }),
          Effect.forkScoped
        )
        return Stream.fromQueue(out).pipe(Stream.interruptWhenDeferred(dropped), Stream.interruptWhenDeferred(closing))
      })

    const service: RunFeed.Service = { announce, subscribe }
    return service
  })
}) {}

/** Terminal runs a subscriber may fall behind by before it loses the oldest. */
export const terminalCapacity = 4096

export declare namespace RunEvents {
  /** The terminal runs of this instance, in process. */
  export interface Service {
    /** Publishes a run that just ended (and counts it in the ended-runs metrics). */
    readonly publish: (run: Run) => Effect.Effect<void>
    /** Every terminal run published after the stream is subscribed. */
    readonly terminal: Stream.Stream<Run>
    /** A scoped subscription, for callers that must not miss a run published right after subscribing. */
    readonly subscribe: Effect.Effect<Queue.Dequeue<Run>, never, Scope.Scope>
  }
}

/**
 * Terminal runs of this instance, for an embedding Effect program:
 * `Stream.runForEach(runEvents.terminal, ...)`. Published after the terminal
 * transaction commits; a slow subscriber never slows the scheduler, and its
 * memory is bounded: one that falls `terminalCapacity` runs behind loses the
 * oldest (a sliding buffer). For every transition of an environment, on any
 * instance and without loss, follow `RunFeed` (the stored timeline) instead.
 */
export class RunEvents extends Effect.Service<RunEvents>()("Scheduler/RunEvents", {
  scoped: Effect.gen(function*() {
    const hub = yield* Effect.acquireRelease(PubSub.sliding<Run>(terminalCapacity), PubSub.shutdown)
    // Every terminal transition passes here, so the ended-runs metrics are counted here too.
    const publish = (run: Run): Effect.Effect<void> =>
      Effect.suspend(() => {
        Metrics.record.runEnded(run.environmentId, run.status, run.durationMs)
        return Effect.asVoid(PubSub.publish(hub, run))
      })
    /** Every terminal run published after the stream is subscribed. */
    const terminal: Stream.Stream<Run> = Stream.fromPubSub(hub)
    /** A scoped subscription, for callers that must not miss a run published right after subscribing. */
    const subscribe = PubSub.subscribe(hub)
    const service: RunEvents.Service = { publish, terminal, subscribe }
    return service
  })
}) {}
