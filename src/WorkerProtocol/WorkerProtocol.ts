import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Readiness } from "../Health/Readiness.js"
import type { PolledRow, RunRow } from "../Contract/Domain/Run.js"
import { Supervisor } from "../Scheduler/Supervision.js"
import { toMillis } from "../Db/Time.js"
import * as Grouped from "../Concurrency/Grouped.js"
import type { RunRejection } from "../Scheduler/RunRejection.js"
import { type Terminal, Transitions } from "../Scheduler/Transitions.js"
import { Wakeups } from "../Scheduler/Dispatch.js"
import { hotSpan } from "../Config/Tracing.js"
import { type CompleteRequest, completion } from "./Completion.js"

export interface PollOptions {
  /** Seconds to wait for an assignment when there is none yet (0..30 over REST). */
  readonly wait: number
  /** Claim the runs in the same call (the fast-worker extension). */
  readonly claim: boolean
  /** How many runs to claim at most. */
  readonly max: number
  /** Start the claimed runs too (`claim=true&start=true`): they come back `running`. */
  readonly start?: boolean | undefined
}

interface StepCall {
  readonly workerId: string
  readonly runId: string
  readonly step: "claim" | "start" | "heartbeat"
}

/** Each call's answer from a grouped statement: its row, or why it was refused. */
const answers = <A extends { readonly id: string }>(
  result: { readonly moved: ReadonlyArray<A>; readonly rejected: ReadonlyArray<RunRejection> }
) =>
(calls: ReadonlyArray<{ readonly runId: string }>): ReadonlyArray<Effect.Effect<A, RunRejection>> => {
  const moved = new Map(result.moved.map((row) => [row.id, row]))
  const refused = new Map(result.rejected.map((why) => [why.runId, why]))
  return calls.map((call) => {
    const row = moved.get(call.runId)
    if (row !== undefined) return Effect.succeed(row)
    const why = refused.get(call.runId)
    return why === undefined ? Effect.dieMessage(`no answer for run ${call.runId}`) : Effect.fail(why)
  })
}

/** A poll answers at most this many unclaimed runs. */
export const pollPageSize = 100

/**
 * The worker side of the scheduler: poll (with long-poll and claim-on-poll),
 * claim, start, heartbeat and complete, each followed by the supervision the
 * new state needs. Built over the scheduler core (`Scheduler.layer`), whose
 * transitions, supervisor and wake-ups it drives.
 */
export class WorkerProtocol extends Effect.Service<WorkerProtocol>()("WorkerProtocol/WorkerProtocol", {
  scoped: Effect.gen(function*() {
    const transitions = yield* Transitions
    const supervisor = yield* Supervisor
    const wakeups = yield* Wakeups
    // Where the host signals its shutdown (the service does; a test or an
    // embedding program may not): waiting polls then answer at once.
    const readiness = yield* Effect.serviceOption(Readiness)
    if (Option.isSome(readiness)) yield* Effect.forkScoped(Effect.zipRight(readiness.value.whenDraining, wakeups.drain))

    const watch = (row: RunRow) => row.deadline_at === null ? Effect.void : supervisor.watch(row.id, toMillis(row.deadline_at))

    /**
     * One look for a claim=true poll: claims what is assigned, else waits as
     * an offer (run creation may claim a new run for it outright) until
     * handed a run, woken, or out of time. Undefined: look again.
     */
    const claimOrWait = (workerId: string, environmentId: string, options: PollOptions, until: number) =>
      Effect.scoped(Effect.gen(function*() {
        const since = yield* Effect.sync(() => wakeups.generationOf(workerId))
        const rows = yield* transitions.claimMany(workerId, options.max, options.start === true)
        const remaining = until - (yield* Clock.currentTimeMillis)
        if (rows.length > 0 || remaining <= 0) return rows
        const ours = yield* asOffer(workerId, environmentId, since, options.start === true, remaining)
        return ours !== undefined && ours.length > 0 ? ours : undefined
      }))

    /**
     * Waits as an offer after a look that found nothing since `since` (the
     * worker's `generationOf` before it), for at most `remaining` ms: run
     * creation may hand the worker a new run outright (with `start`, started).
     * Answers the runs handed (none when woken or out of time), or undefined
     * when a wake-up came since the look (look again). Runs in the caller's scope.
     */
    const asOffer = (workerId: string, environmentId: string, since: number, start: boolean, remaining: number) =>
      Effect.gen(function*() {
        // Offered only now, so whatever is handed to it is returned below;
        // a run assigned while we looked woke us already: look again.
        const offer = yield* wakeups.offer(workerId, environmentId, since, { start })
        if (offer === undefined) return undefined
        // However this ends, nothing may be handed to the offer afterwards.
        yield* Effect.addFinalizer(() => wakeups.abandon(offer))
        // No deadline (the channel's wait): no timer fiber either, the waiting fiber is the only one.
        if (Number.isFinite(remaining)) yield* Effect.forkScoped(Effect.zipRight(Effect.sleep(remaining), wakeups.finishOffer(offer)))
        const handed = yield* wakeups.awaitOffer(offer)
        return start && handed.length > 0 ? yield* started(workerId, handed) : handed
      })

    /**
     * The runs handed to a `start=true` poll, started: run creation hands
     * them over started, except beside a plain claim poll of the same worker
     * (then claimed, and started here). One that is no longer claimed is left
     * out: its deadline passed in between and supervision times it out.
     */
    const started = (workerId: string, handed: ReadonlyArray<PolledRow>) => {
      const claimed = handed.filter((row) => row.status !== "running")
      if (claimed.length === 0) return Effect.succeed(handed)
      return Effect.map(transitions.stepMany(workerId, claimed.map((row) => row.id), "start"), ({ moved }) => {
        const byId = new Map(moved.map((row) => [row.id, row]))
        return handed.flatMap((row) => {
          if (row.status === "running") return [row]
          const now = byId.get(row.id)
          return now === undefined ? [] : [{ ...now, trigger_name: row.trigger_name, trigger_input: row.trigger_input, trigger_command: row.trigger_command }]
        })
      })
    }

    /** One look for a plain poll: the assigned runs, else wait for a wake-up or the deadline. */
    const listOrWait = (workerId: string, _environmentId: string, _options: PollOptions, until: number) =>
      Effect.scoped(Effect.gen(function*() {
        // Subscribe before looking, so an assignment in between still wakes us.
        const assigned = yield* wakeups.subscribe(workerId, { poll: true })
        const rows = yield* transitions.assignedTo(workerId, pollPageSize)
        const remaining = until - (yield* Clock.currentTimeMillis)
        if (rows.length > 0 || remaining <= 0) return rows
        yield* Number.isFinite(remaining) ? Effect.timeoutOption(assigned, remaining) : assigned
        return undefined
      }))

    /**
     * A poll's whole answer: the runs it hands out, and the ids of the
     * worker's claimed or running runs whose cancel was requested (the worker
     * should stop them and complete them). A cancel request wakes a waiting
     * poll (see `Runs/Cancellation`), which then answers at once; a long poll
     * that starts with such runs pending does not wait.
     */
    const pollAnswer = (
      workerId: string,
      environmentId: string,
      options: PollOptions
    ): Effect.Effect<{ readonly runs: ReadonlyArray<PolledRow>; readonly cancelRequested: ReadonlyArray<string> }> =>
      Effect.gen(function*() {
        // A poll is a good moment to hand out the environment's queued runs.
        yield* supervisor.assignAndWatch(environmentId)
        const pending = options.wait > 0 ? yield* transitions.cancelRequestedOf(workerId) : undefined
        const wait = (pending !== undefined && pending.length > 0) || wakeups.isDraining() ? 0 : options.wait
        const until = (yield* Clock.currentTimeMillis) + wait * 1000
        while (true) {
          const since = wakeups.generationOf(workerId)
          const found = yield* (options.claim ? claimOrWait : listOrWait)(workerId, environmentId, options, until)
          if (found !== undefined) {
            yield* Effect.forEach(found, watch, { discard: true })
            return { runs: found, cancelRequested: yield* transitions.cancelRequestedOf(workerId) }
          }
          // Out of time and never woken: no run was assigned and no cancel
          // requested since the look (either would have woken it, on another
          // instance through NOTIFY), so the answer is empty without reading
          // again. An idle fleet's every poll ends so; looking again cost
          // three statements each.
          if (wakeups.generationOf(workerId) === since && (yield* Clock.currentTimeMillis) >= until) return { runs: [], cancelRequested: [] }
          // Woken with nothing to hand out: perhaps by a cancel request.
          const cancelRequested = yield* transitions.cancelRequestedOf(workerId)
          // Or by the instance stopping: it answers now, not after the wait.
          if (cancelRequested.length > 0 || wakeups.isDraining()) return { runs: [], cancelRequested }
        }
      }).pipe(hotSpan("WorkerProtocol.poll"), Effect.annotateLogs({ workerId }))

    /**
     * The worker channel's look (`WorkerChannel/Pushes`): the environment's
     * queued runs handed out, then up to `max` of the worker's assigned runs
     * claimed and started with its cancel requests, in one statement. Unlike
     * a poll, it never waits and never reads the cancel requests on its own.
     */
    const pushLook = (
      workerId: string,
      environmentId: string,
      max: number
    ): Effect.Effect<{ readonly runs: ReadonlyArray<PolledRow>; readonly cancelRequested: ReadonlyArray<string> }> =>
      Effect.zipRight(
        supervisor.assignAndWatch(environmentId),
        Effect.tap(transitions.claimForPush(workerId, max), ({ runs }) => Effect.forEach(runs, watch, { discard: true }))
      )

    /**
     * After a look that found nothing since `since` (the worker's
     * `generationOf` before it), waits as an offer: run creation may hand the
     * worker a new run outright, started here. Answers the runs handed, or
     * none once woken (or when a wake-up came since the look): look again.
     * No deadline, so no timer: the channel's connection ends the wait.
     */
    const awaitPush = (workerId: string, environmentId: string, since: number): Effect.Effect<ReadonlyArray<PolledRow>> =>
      Effect.scoped(Effect.gen(function*() {
        const ours = (yield* asOffer(workerId, environmentId, since, true, Infinity)) ?? []
        yield* Effect.forEach(ours, watch, { discard: true })
        return ours
      }))

    /** The runs a poll hands out (`pollAnswer` without the cancel requests). */
    const poll = (workerId: string, environmentId: string, options: PollOptions): Effect.Effect<ReadonlyArray<PolledRow>> =>
      Effect.map(pollAnswer(workerId, environmentId, options), (answer) => answer.runs)

    // The contract's one-call-per-step requests, grouped per worker and step
    // (`Concurrency/Grouped`): a worker's calls that arrive while its
    // previous statement for that step runs share the next one.
    const stepped = yield* Grouped.make<StepCall, RunRow, RunRejection>({
      max: pollPageSize,
      id: (call) => call.runId,
      run: (_key, calls) =>
        Effect.map(transitions.stepMany(calls[0]!.workerId, calls.map((call) => call.runId), calls[0]!.step), (result) => answers(result)(calls))
    })
    const step = (workerId: string, runId: string, kind: StepCall["step"]) => stepped(`${kind}/${workerId}`, { workerId, runId, step: kind })

    const claim = (workerId: string, runId: string): Effect.Effect<RunRow, RunRejection> =>
      Effect.tap(step(workerId, runId, "claim"), watch)

    const start = (workerId: string, runId: string): Effect.Effect<RunRow, RunRejection> =>
      Effect.tap(step(workerId, runId, "start"), watch)

    // A heartbeat only moves the deadline later: the fiber finds it when it wakes.
    const heartbeat = (workerId: string, runId: string): Effect.Effect<RunRow, RunRejection> =>
      step(workerId, runId, "heartbeat")

    /**
     * After runs ended here: their fibers have nothing left to do, their
     * retries need a worker, and the places held under concurrency limits
     * are free for runs waiting on them (docs/flow-control.md).
     */
    const ended = (terminals: ReadonlyArray<Terminal>) =>
      Effect.gen(function*() {
        for (const terminal of terminals) yield* supervisor.release(terminal.run.id)
        const again = new Set(terminals.flatMap((t) => [
          ...(t.retry === undefined ? [] : [t.retry.environment_id]),
          ...(t.run.flow_limited === true ? [t.run.environment_id] : [])
        ]))
        for (const environmentId of again) yield* supervisor.assignAndWatch(environmentId)
      })

    /** Several completes in one statement (`POST /workers/{id}/runs/complete`); each run is accepted or rejected on its own. */
    const completeMany = (
      workerId: string,
      requests: ReadonlyArray<CompleteRequest & { readonly runId: string }>
    ): Effect.Effect<{ readonly ended: ReadonlyArray<Terminal>; readonly rejected: ReadonlyArray<RunRejection> }> =>
      Effect.tap(
        transitions.completeMany(workerId, requests.map((request) => ({ runId: request.runId, completion: completion(request) }))),
        (result) => ended(result.ended)
      ).pipe(Effect.annotateLogs({ workerId }))

    // Single completes, grouped per worker as the other steps are.
    const completes = yield* Grouped.make<CompleteRequest & { readonly workerId: string; readonly runId: string }, Terminal, RunRejection>({
      max: pollPageSize,
      id: (call) => call.runId,
      run: (_key, calls) =>
        Effect.map(completeMany(calls[0]!.workerId, calls), ({ ended, rejected }) =>
          answers({ moved: ended.map((terminal) => ({ ...terminal, id: terminal.run.id })), rejected })(calls))
    })

    const complete = (workerId: string, runId: string, request: CompleteRequest): Effect.Effect<Terminal, RunRejection> =>
      completes(workerId, { ...request, workerId, runId }).pipe(Effect.annotateLogs({ workerId, runId }))

    return { poll, pollAnswer, pushLook, awaitPush, claim, start, heartbeat, complete, completeMany } as const
  })
}) {}
