import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import { hotSpan } from "../Config/Tracing.js"
import { type PolledRow, type RunRow, toRun } from "../Contract/Domain/Run.js"
import * as Metrics from "../Observability/Metrics.js"
import { type Completion, type Ended, type Lease, RunStore, type Terminal } from "../RunStore/RunStore.js"
import { RunEvents, RunFeed } from "./RunFeed.js"
import { RunNotFound, type RunRejection, RunStateConflict, type WorkerStep } from "./RunRejection.js"
import { DueAlarm } from "./Due.js"
import { type Slot, TerminalHandoff } from "./TerminalHandoff.js"

export type { Completion, Terminal } from "../RunStore/RunStore.js"

export declare namespace Transitions {
  /** What the transitions offer; each wraps the `RunStore` operation of the same name. */
  export interface Service {
    /** Claims (with `start`, also starts) up to `max` of the worker's assigned runs; dispatch latency recorded, feed told. */
    readonly claimMany: (workerId: string, max: number, start?: boolean) => Effect.Effect<ReadonlyArray<PolledRow>>
    /** `claimMany` with `start` for the worker channel, with the worker's cancel requests, in one statement. */
    readonly claimForPush: (
      workerId: string,
      max: number
    ) => Effect.Effect<{ readonly runs: ReadonlyArray<PolledRow>; readonly cancelRequested: ReadonlyArray<string> }>
    /** The worker's assigned, not yet claimed runs (what a poll hands out). */
    readonly assignedTo: (workerId: string, max: number) => Effect.Effect<ReadonlyArray<PolledRow>>
    /** Claims, starts or heartbeats several of the worker's runs; answers those moved and why each other one was not. */
    readonly stepMany: (
      workerId: string,
      runIds: ReadonlyArray<string>,
      step: Exclude<WorkerStep, "complete">
    ) => Effect.Effect<{ readonly moved: ReadonlyArray<RunRow>; readonly rejected: ReadonlyArray<RunRejection> }>
    /** Completes several of the worker's runs (webhooks handed over); answers those ended and why each other one was not. */
    readonly completeMany: (
      workerId: string,
      items: ReadonlyArray<{ readonly runId: string; readonly completion: Completion }>
    ) => Effect.Effect<{ readonly ended: ReadonlyArray<Terminal>; readonly rejected: ReadonlyArray<RunRejection> }>
    /** Times out one run whose deadline passed, with its follow-up; undefined when the deadline moved or another instance won. */
    readonly timeOut: (runId: string, at?: number) => Effect.Effect<Terminal | undefined>
    /** Times out several runs with no follow-up in one statement, each at its own `at`; answers the runs it ended. */
    readonly timeOutMany: (items: ReadonlyArray<{ readonly runId: string; readonly at: number }>) => Effect.Effect<ReadonlyArray<RunRow>>
    /** Times out a revoked worker's claimed and running runs at once; answers the runs it ended. */
    readonly timeOutRevoked: (workerId: string) => Effect.Effect<ReadonlyArray<Terminal>>
    /** Runs not claimed by their `expiresAt` (as of `now`, ISO) end `expired`, with their webhooks; answers them. */
    readonly expireDue: (now: string) => Effect.Effect<ReadonlyArray<Terminal>>
    /** Cancels a run (ended at once, or requested from its worker); undefined when nothing matched. */
    readonly cancel: (
      runId: string,
      environmentId: string,
      actor: { readonly type: string; readonly id: string | null },
      bulkActionId?: string | undefined
    ) => Effect.Effect<Terminal | undefined>
    /** The ids of the worker's runs whose cancel was requested and that have not ended. */
    readonly cancelRequestedOf: (workerId: string) => Effect.Effect<ReadonlyArray<string>>
  }
}

/**
 * The run state machine after assignment: each transition is a statement of
 * the run store (`RunStore`), followed here by what this instance does about
 * it (the live feed, the terminal-run stream, webhook handoff, metrics).
 */
export class Transitions extends Effect.Service<Transitions>()("Scheduler/Transitions", {
  effect: Effect.gen(function*() {
    const events = yield* RunEvents
    const feed = yield* RunFeed
    const store = yield* RunStore
    // This instance's delivery loop, or the port's `none` (see `TerminalHandoff`).
    const ending = endingWith(yield* TerminalHandoff, yield* DueAlarm)

    // Live subscribers of the runs' environments look at the new timeline rows now.
    const announced = (rows: ReadonlyArray<{ readonly environment_id: string }>) =>
      rows.length === 0 ? Effect.void : feed.announce(new Set(rows.map((row) => row.environment_id)))

    const published = (terminal: Terminal | undefined) =>
      terminal === undefined || terminal.run.ended_at === null ? Effect.void : events.publish(toRun(terminal.run))

    /** Why each of the worker's runs matched no row: not its run, or the wrong state for the step. */
    const rejections = (workerId: string, runIds: ReadonlyArray<string>, step: WorkerStep) =>
      Effect.map(
        store.statusesOf(workerId, runIds),
        (rows): ReadonlyArray<RunRejection> => {
          const status = new Map(rows.map((row) => [row.id, row.status]))
          return runIds.map((runId) => {
            const now = status.get(runId)
            return now === undefined ? new RunNotFound({ runId }) : new RunStateConflict({ runId, step, status: now })
          })
        }
      )

    // A worker's steps before the end: the dispatch latency of claimed runs,
    // the live feed, and why a run did not move.

    /** Runs a worker just claimed: their dispatch latency recorded, the feed told. */
    const handedOut = (rows: ReadonlyArray<PolledRow>) => {
      dispatched(rows)
      return announced(rows)
    }

    const claimMany = (workerId: string, max: number, start = false): Effect.Effect<ReadonlyArray<PolledRow>> =>
      store.claimMany(workerId, max, start).pipe(Effect.tap(handedOut), hotSpan("Transitions.claimMany"))

    const claimForPush = (workerId: string, max: number) =>
      store.claimForPush(workerId, max).pipe(Effect.tap(({ runs }) => handedOut(runs)), hotSpan("Transitions.claimForPush"))

    // Not the worker's run (`RunNotFound`), or the wrong state or a passed deadline (`RunStateConflict`).
    const stepMany = (
      workerId: string,
      runIds: ReadonlyArray<string>,
      step: Exclude<WorkerStep, "complete">
    ): Effect.Effect<{ readonly moved: ReadonlyArray<RunRow>; readonly rejected: ReadonlyArray<RunRejection> }> =>
      Effect.gen(function*() {
        const moved = yield* store.stepMany(workerId, runIds, step)
        if (step === "claim") dispatched(moved)
        if (step !== "heartbeat") yield* announced(moved)
        const done = new Set(moved.map((row) => row.id))
        const missing = runIds.filter((id) => !done.has(id))
        const rejected = missing.length === 0 ? [] : yield* rejections(workerId, missing, step)
        return { moved, rejected }
      }).pipe(hotSpan("Transitions.stepMany"))

    // A run ends: the terminal-run stream, the live feed, and why a run a
    // worker completed did not end.

    const completeMany = (
      workerId: string,
      items: ReadonlyArray<{ readonly runId: string; readonly completion: Completion }>
    ): Effect.Effect<{ readonly ended: ReadonlyArray<Terminal>; readonly rejected: ReadonlyArray<RunRejection> }> =>
      Effect.gen(function*() {
        const runIds = items.map((item) => item.runId)
        const ended = yield* ending(runIds.length, (lease) => store.completeMany(workerId, items, lease))
        yield* Effect.forEach(ended, published, { discard: true })
        yield* announced(ended.map((t) => t.run))
        const done = new Set(ended.map((t) => t.run.id))
        const missing = runIds.filter((id) => !done.has(id))
        const rejected = missing.length === 0 ? [] : yield* rejections(workerId, missing, "complete")
        return { ended, rejected }
      }).pipe(hotSpan("Transitions.completeMany"))

    const timeOut = (runId: string, at?: number): Effect.Effect<Terminal | undefined> =>
      Effect.gen(function*() {
        const [ended] = yield* ending(1, (lease) => store.timeOut(runId, at, lease))
        yield* published(ended)
        if (ended !== undefined) yield* announced([ended.run])
        return ended
      }).pipe(hotSpan("Transitions.timeOut", { runId }))

    const timeOutMany = (items: ReadonlyArray<{ readonly runId: string; readonly at: number }>): Effect.Effect<ReadonlyArray<RunRow>> =>
      Effect.gen(function*() {
        const ended = yield* store.timeOutMany(items)
        yield* Effect.forEach(ended, (run) => events.publish(toRun(run)), { discard: true })
        yield* announced(ended)
        return ended
      }).pipe(hotSpan("Transitions.timeOutMany"))

    const timeOutRevoked = (workerId: string): Effect.Effect<ReadonlyArray<Terminal>> =>
      Effect.gen(function*() {
        const runIds = yield* store.heldBy(workerId)
        if (runIds.length === 0) return []
        const ended = yield* ending(runIds.length, (lease) => store.timeOutRevoked(workerId, runIds, lease))
        yield* Effect.forEach(ended, published, { discard: true })
        return ended
      }).pipe(Effect.withSpan("Transitions.timeOutRevoked", { attributes: { workerId } }))

    // Runs not claimed within their time-to-live end `expired`; their webhooks go through the outbox (any instance's loop).
    const expireDue = (now: string): Effect.Effect<ReadonlyArray<Terminal>> =>
      Effect.gen(function*() {
        const ended = yield* ending(0, (lease) => store.expireDue(now, lease))
        yield* Effect.forEach(ended, published, { discard: true })
        yield* announced(ended.map((t) => t.run))
        return ended
      }).pipe(Effect.withSpan("Transitions.expireDue"))

    // Cancel requests: an ended run published.

    const cancel = (
      runId: string,
      environmentId: string,
      actor: { readonly type: string; readonly id: string | null },
      bulkActionId?: string | undefined
    ): Effect.Effect<Terminal | undefined> =>
      Effect.gen(function*() {
        const [changed] = yield* ending(1, (lease) => store.cancel(runId, environmentId, actor, lease, bulkActionId))
        yield* published(changed)
        return changed
      }).pipe(Effect.withSpan("Transitions.cancel", { attributes: { runId } }))

    const service: Transitions.Service = {
      claimMany,
      claimForPush,
      assignedTo: store.assignedTo,
      stepMany,
      completeMany,
      timeOut,
      timeOutMany,
      timeOutRevoked,
      expireDue,
      cancel,
      cancelRequestedOf: store.cancelRequestedOf
    }
    return service
  })
}) {}

/** Dispatch latency (request to claim) of runs just claimed. */
const dispatched = (rows: ReadonlyArray<RunRow>): void => {
  for (const row of rows) {
    if (row.claimed_at !== null) {
      Metrics.record.dispatched(row.environment_id, new Date(row.claimed_at).getTime() - new Date(row.created_at).getTime())
    }
  }
}

/**
 * Every ending of a run (the terminal statement of `SqlRunStore`) with its
 * webhook handed to this instance's delivery loop through the
 * `TerminalHandoff` port when it has room.
 */
const endingWith = (handoff: TerminalHandoff["Type"], alarm: DueAlarm) => {
  /**
   * Places in this instance's delivery loop for `n` webhooks (see
   * `TerminalHandoff`): all of them, or none (then every row of the
   * statement takes the NOTIFY path). None inside a transaction: a row
   * would be handed before it commits.
   */
  const reserveSlots = (n: number): Effect.Effect<ReadonlyArray<Slot>> =>
    Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (transaction) => {
      if (Option.isSome(transaction)) return Effect.succeed([])
      const slots: Array<Slot> = []
      for (let i = 0; i < n; i++) {
        const slot = handoff.reserve()
        // Not enough room: give back what was taken.
        if (slot === undefined) return Effect.as(Effect.forEach(slots, (taken) => taken.cancel, { discard: true }), [])
        slots.push(slot)
      }
      return Effect.succeed(slots)
    })

  /**
   * Runs a terminal statement that may end up to `n` runs with their outbox
   * rows leased to this instance's loop when it has room for all of them,
   * then hands each row leased to it; the places not used are given back.
   */
  return (n: number, statement: (lease: Lease) => Effect.Effect<Ended>): Effect.Effect<ReadonlyArray<Terminal>> =>
    Effect.uninterruptible(Effect.flatMap(reserveSlots(n), (slots) =>
      statement({ owner: slots[0]?.owner ?? null, leaseMillis: slots[0]?.leaseMillis ?? 0 }).pipe(
        Effect.onExit((exit) => {
          if (slots.length === 0) return Effect.void
          const leased = Exit.isSuccess(exit) ? exit.value.leased : []
          return Effect.all([
            ...leased.map((run, i) => slots[i]!.hand(run)),
            ...slots.slice(leased.length).map((slot) => slot.cancel)
          ], { discard: true })
        }),
        Effect.map((result) => result.ended),
        // A retry waiting out its backoff (or with a time-to-live) is the due loop's to watch.
        Effect.tap((ended) => alarm.ring(ended.flatMap((t) => t.retry === undefined ? [] : [t.retry])))
      )))
}
