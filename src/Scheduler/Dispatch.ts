import * as SqlClient from "@effect/sql/SqlClient"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { TuningShape } from "../Config/Tuning.js"
import { hotSpan } from "../Config/Tracing.js"
import { Notifications } from "../Db/Notifications.js"
import { ValidationDetails, ValidationError } from "../Contract/Domain/ApiErrors.js"
import * as InputSchema from "./InputSchema.js"
import { maxTags } from "../Contract/Domain/Tags.js"
import type { PolledRow, RunRow } from "../Contract/Domain/Run.js"
import { nowIso } from "../Db/Time.js"
import {
  type Advance,
  assignedChannel,
  type Created,
  type CreateRequest,
  type Deadline,
  type InputRules,
  type Placement,
  RunStore
} from "../RunStore/RunStore.js"
import type { DueAlarm } from "./Due.js"
import { RunFeed } from "./RunFeed.js"

export type { Deadline } from "../RunStore/RunStore.js"

/**
 * Dispatch: how a run reaches a worker. Waiting polls and their wake-ups
 * (`Wakeups`), the waiting workers kept "seen" (`Presence`), the assignment
 * pass and releases (`Assignment`, passes that do not pile up), and new runs
 * created with their inputs checked and placed in the creating statement
 * (`makeRunCreation`, built by the supervisor, which supervises what it creates).
 */

/**
 * A `claim=true` poll waiting on this instance. Run creation may claim a new
 * run for it in the creating statement and hand the row over here, which
 * spares the woken poll its claim statement (the last round trip between a
 * run request and an idle worker receiving it).
 *
 * open → reserved (a creating statement may claim a run for it) → open again,
 * or done. Done: handed a run, woken, timed out, or withdrawn. A reserved
 * offer is never dropped: whoever waits on it waits for the statement.
 */
export interface Offer {
  readonly workerId: string
  readonly environmentId: string
  /** The poll takes runs started (`start=true`, the worker channel): a run is handed to it claimed and started. */
  readonly start: boolean
  state: "open" | "reserved" | "done"
  /** Asked to finish (woken, timed out, withdrawn) while reserved. */
  finishing: boolean
  /** The poll went away (interrupted) while reserved: nothing may be handed to it. */
  abandoned: boolean
  rows: ReadonlyArray<PolledRow>
  resume: (() => void) | undefined
}

/** The offers a creating statement may claim for; settle it once the statement has ended. */
export interface Reservation {
  readonly workerIds: ReadonlyArray<string>
  /** Of `workerIds`, those whose every reserved offer takes runs started. */
  readonly startFor: ReadonlyArray<string>
  /**
   * Hands each of `rows` (claimed for `row.worker_id`) to one of that
   * worker's polls; answers the rows no poll was left to take.
   */
  readonly settle: (rows: ReadonlyArray<PolledRow>) => ReadonlyArray<PolledRow>
}

export declare namespace Wakeups {
  /** Waiting polls on this instance and what wakes them. */
  export interface Service {
    /** Wakes every poll of the worker waiting here (a run was assigned to it). */
    readonly wake: (workerId: string) => Effect.Effect<void>
    /** Registers interest in the worker for the scope; answers an effect that completes on its next wake-up. */
    readonly subscribe: (workerId: string, options?: { readonly poll?: boolean }) => Effect.Effect<Effect.Effect<void>, never, Scope.Scope>
    /**
     * Calls `resume` once, on the worker's first wake-up after generation
     * `since` (at once when one came already); answers the function that
     * withdraws it. Waiting so counts as a waiting poll (`waitingWorkers`).
     */
    readonly onWake: (workerId: string, since: number, resume: () => void) => () => void
    /** The worker's wake-ups so far: a poll that looked since then offers itself only if none came after. */
    readonly generationOf: (workerId: string) => number
    /** Offers a `claim=true` poll that found nothing since `since` to run creation; undefined when a wake-up came in between. */
    readonly offer: (workerId: string, environmentId: string, since: number, options?: { readonly start?: boolean }) => Effect.Effect<Offer | undefined>
    /** What was handed to the offer, once it is done (handed a run, woken, finished or withdrawn). */
    readonly awaitOffer: (offer: Offer) => Effect.Effect<ReadonlyArray<PolledRow>>
    /** Finishes the offer (the poll's own deadline); a reserved one waits for its statement. */
    readonly finishOffer: (offer: Offer) => Effect.Effect<void>
    /** The poll leaves without waiting: a run being claimed for it now will be unclaimed. */
    readonly abandon: (offer: Offer) => Effect.Effect<void>
    /** Reserves the environment's open offers for one creating statement; settle it once the statement has ended. */
    readonly reserve: (environmentId: string | undefined) => Reservation
    /** Workers with a poll waiting on this instance. */
    readonly waitingWorkers: () => ReadonlyArray<string>
    /** Workers whose plain long poll waits here (preferred among equals by placement). */
    readonly pollingWorkers: () => ReadonlyArray<string>
    /** The instance is stopping: wakes every waiting poll to answer now. */
    readonly drain: Effect.Effect<void>
    /** Whether `drain` has begun. */
    readonly isDraining: () => boolean
  }
}

/** The most waiting polls one run-creating statement names (offers it may hand runs to, polls it prefers). */
export const maxReserved = 64

/** The first `n` of `items`, in their order. */
const firstOf = <A>(items: Iterable<A>, n: number): Array<A> => {
  const first: Array<A> = []
  for (const item of items) {
    if (first.length === n) break
    first.push(item)
  }
  return first
}

/**
 * Wakes long-polling workers as soon as a run is assigned to them: at once for
 * assignments made by this instance, and through LISTEN/NOTIFY for those made
 * by another instance sharing the database. A waiting poll is one `Deferred`
 * (or one `Offer`) in a map, so thousands of idle workers cost next to nothing.
 */
export class Wakeups extends Effect.Service<Wakeups>()("Scheduler/Wakeups", {
  scoped: Effect.gen(function*() {
    const notifications = yield* Notifications
    // What each waiting worker's wake-up calls: a `subscribe`r's Deferred, or an `onWake` callback (no fiber behind it).
    const waiting = new Map<string, Set<() => void>>()
    // Workers whose plain (claim=false) long poll waits here, with how many such polls.
    const polls = new Map<string, number>()

    // Open offers by environment (run creation reserves an environment's), and
    // every offer not yet done by worker (a wake-up finishes them).
    const offers = new Map<string, Set<Offer>>()
    const offersOf = new Map<string, Set<Offer>>()
    const add = <K>(map: Map<K, Set<Offer>>, key: K, offer: Offer) => {
      const set = map.get(key) ?? new Set()
      set.add(offer)
      map.set(key, set)
    }
    const remove = <K>(map: Map<K, Set<Offer>>, key: K, offer: Offer) => {
      const set = map.get(key)
      if (set === undefined) return
      set.delete(offer)
      if (set.size === 0) map.delete(key)
    }
    const finish = (offer: Offer, rows: ReadonlyArray<PolledRow>) => {
      if (offer.state === "open") remove(offers, offer.environmentId, offer)
      remove(offersOf, offer.workerId, offer)
      offer.state = "done"
      offer.rows = rows
      const resume = offer.resume
      offer.resume = undefined
      resume?.()
    }
    /** Done at once when open; when reserved, once its statement has settled. */
    const requestFinish = (offer: Offer) => {
      if (offer.state === "open") finish(offer, [])
      else if (offer.state === "reserved") offer.finishing = true
    }

    // Wake-ups per worker so far: a poll that looked (and found nothing) since
    // generation g offers itself only if no wake-up came after g.
    const generations = new Map<string, number>()
    const generationOf = (workerId: string): number => generations.get(workerId) ?? 0

    const wake = (workerId: string): Effect.Effect<void> =>
      Effect.suspend(() => {
        generations.set(workerId, generationOf(workerId) + 1)
        const mine = offersOf.get(workerId)
        if (mine !== undefined) for (const offer of [...mine]) requestFinish(offer)
        const set = waiting.get(workerId)
        if (set === undefined) return Effect.void
        waiting.delete(workerId)
        for (const resume of set) resume()
        return Effect.void
      })

    const addWaiting = (workerId: string, resume: () => void) => {
      const set = waiting.get(workerId) ?? new Set()
      set.add(resume)
      waiting.set(workerId, set)
    }
    const removeWaiting = (workerId: string, resume: () => void) => {
      const set = waiting.get(workerId)
      if (set === undefined) return
      set.delete(resume)
      if (set.size === 0) waiting.delete(workerId)
    }

    const onWake = (workerId: string, since: number, resume: () => void): () => void => {
      if (generationOf(workerId) !== since) {
        resume()
        return () => {}
      }
      let called = false
      const once = () => {
        if (called) return
        called = true
        resume()
      }
      addWaiting(workerId, once)
      return () => {
        called = true
        removeWaiting(workerId, once)
      }
    }

    /**
     * Offers a poll that found nothing since `since` (its `generationOf`
     * before it looked); undefined when a wake-up came in between, so it
     * looks again instead. The offer exists only while the poll waits on it.
     */
    const offer = (workerId: string, environmentId: string, since: number, options?: { readonly start?: boolean }): Effect.Effect<Offer | undefined> =>
      Effect.sync(() => {
        if (generationOf(workerId) !== since) return undefined
        const offer: Offer = {
          workerId,
          environmentId,
          start: options?.start === true,
          state: "open",
          finishing: false,
          abandoned: false,
          rows: [],
          resume: undefined
        }
        add(offers, environmentId, offer)
        add(offersOf, workerId, offer)
        return offer
      })

    /**
     * Resolves with what was handed over, once the offer is done: a handoff,
     * a wake-up, or `finishOffer` (the poll's own deadline; it waits out a
     * reservation). Interrupted while reserved, the offer is abandoned and the
     * creating statement's run is not handed to it.
     */
    const awaitOffer = (offer: Offer): Effect.Effect<ReadonlyArray<PolledRow>> =>
      Effect.async<ReadonlyArray<PolledRow>>((resume) => {
        if (offer.state === "done") return resume(Effect.succeed(offer.rows))
        offer.resume = () => resume(Effect.succeed(offer.rows))
        return Effect.sync(() => {
          offer.resume = undefined
          abandonNow(offer)
        })
      })

    const abandonNow = (offer: Offer) => {
      if (offer.state === "reserved") offer.abandoned = true
      else if (offer.state === "open") finish(offer, [])
    }
    /** The poll leaves without waiting: a run a statement is claiming for it now will be unclaimed. */
    const abandon = (offer: Offer): Effect.Effect<void> => Effect.sync(() => abandonNow(offer))

    const finishOffer = (offer: Offer): Effect.Effect<void> => Effect.sync(() => requestFinish(offer))

    const reserve = (environmentId: string | undefined): Reservation => {
      const set = environmentId === undefined ? undefined : offers.get(environmentId)
      if (set === undefined) return { workerIds: [], startFor: [], settle: (rows) => rows }
      // The longest-waiting few only: the statement names each reserved worker twice, and with 10,000 idle
      // workers offering, every run request named all of them (a run reached an idle worker in 60 ms, not 2).
      // The rest stay open, and a run placed on one is assigned and wakes it, one statement more. Settled
      // offers go back to the end, so the next statement reserves the next ones.
      const reserved = firstOf(set, maxReserved)
      for (const offer of reserved) {
        remove(offers, environmentId!, offer)
        offer.state = "reserved"
      }
      // Each worker once, and whether a run handed over started suits whichever of its offers takes it.
      const startsOf = new Map<string, boolean>()
      for (const offer of reserved) startsOf.set(offer.workerId, (startsOf.get(offer.workerId) ?? true) && offer.start)
      return {
        workerIds: [...startsOf.keys()],
        startFor: [...startsOf].flatMap(([workerId, start]) => start ? [workerId] : []),
        settle: (rows) => {
          const left = [...rows]
          for (const offer of reserved) {
            const mine = offer.abandoned ? -1 : left.findIndex((row) => row.worker_id === offer.workerId)
            if (mine >= 0) {
              finish(offer, left.splice(mine, 1))
            } else if (offer.abandoned || offer.finishing) {
              finish(offer, [])
            } else {
              offer.state = "open"
              add(offers, offer.environmentId, offer)
            }
          }
          return left
        }
      }
    }

    /**
     * Registers interest in `workerId` for the enclosing scope and answers an
     * effect that completes on the next wake-up. Register before looking for
     * runs, so an assignment in between is not missed. `poll`: a long poll
     * that would take a run now (see `pollingWorkers`).
     */
    const subscribe = (workerId: string, options?: { readonly poll?: boolean }): Effect.Effect<Effect.Effect<void>, never, Scope.Scope> =>
      Effect.acquireRelease(
        Effect.map(Deferred.make<void>(), (deferred) => {
          const resume = () => Deferred.unsafeDone(deferred, Exit.void)
          addWaiting(workerId, resume)
          if (options?.poll === true) polls.set(workerId, (polls.get(workerId) ?? 0) + 1)
          return { deferred, resume }
        }),
        ({ resume }) =>
          Effect.sync(() => {
            if (options?.poll === true) {
              const n = (polls.get(workerId) ?? 1) - 1
              if (n === 0) polls.delete(workerId)
              else polls.set(workerId, n)
            }
            removeWaiting(workerId, resume)
          })
      ).pipe(Effect.map(({ deferred }) => Deferred.await(deferred)))

    // Another instance's assignments arrive here; our own do too, harmlessly
    // (the in-process wake-up already happened, nobody is waiting any more).
    // After the LISTEN failed (its connection cut with the database's), every
    // poll waiting here looks again as it listens anew: an assignment
    // meanwhile, here or elsewhere, may have lost its wake-up (its NOTIFY, or a
    // statement whose answer was lost with its connection), and its run would
    // otherwise sit until its claim timeout.
    let listened = false
    yield* Effect.suspend(() => {
      const again = listened
      listened = true
      const lookAgain = again
        ? Effect.forEach(new Set([...waiting.keys(), ...offersOf.keys()]), wake, { discard: true })
        : Effect.void
      return Stream.runForEach(Stream.concat(Stream.fromEffect(Effect.as(lookAgain, undefined)).pipe(Stream.drain), notifications.listen(assignedChannel)), wake)
    }).pipe(
      Effect.tapErrorCause((cause) => Effect.logWarning("LISTEN for assignments failed; retrying", cause)),
      Effect.retry(Schedule.spaced("1 second")),
      Effect.forkScoped
    )

    /** Workers with a poll waiting on this instance. */
    const waitingWorkers = (): ReadonlyArray<string> => [...new Set([...waiting.keys(), ...offersOf.keys()])]

    // The instance is stopping: every waiting poll is woken to answer what it
    // has now, rather than holding the shutdown for the rest of its wait.
    let draining = false
    const drain: Effect.Effect<void> = Effect.suspend(() => {
      draining = true
      return Effect.forEach(waitingWorkers(), wake, { discard: true })
    })
    const isDraining = (): boolean => draining

    /**
     * Workers whose plain long poll waits on this instance: a run placed on
     * one is taken at once, so placement prefers them among equals (a claim
     * poll's offer is preferred through `reserve`).
     */
    // As many as `reserve` names, for the same reason.
    const pollingWorkers = (): ReadonlyArray<string> => firstOf(polls.keys(), maxReserved)

    const service: Wakeups.Service = { wake, subscribe, onWake, generationOf, offer, awaitOffer, finishOffer, abandon, reserve, waitingWorkers, pollingWorkers, drain, isDraining }
    return service
  })
}) {}

/**
 * Keeps the workers whose polls wait on this instance "seen": a long poll
 * records the worker's contact when it arrives, and may then wait 30 s. Every
 * two seconds one statement touches every waiting worker (at most once a
 * second each, as request contact is), so on every instance a waiting worker
 * reads as active (`Tuning.activeWorkerSeconds`) and is preferred for
 * new runs over a worker that registered and stopped polling.
 */
export class Presence extends Effect.Service<Presence>()("Scheduler/Presence", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const wakeups = yield* Wakeups

    const touch = Effect.suspend(() => {
      const ids = wakeups.waitingWorkers()
      if (ids.length === 0) return Effect.void
      return Effect.flatMap(nowIso, (now) =>
        sql`
        UPDATE workers SET last_seen_at = ${now}::timestamptz
        WHERE id = ANY(${ids}::uuid[]) AND last_seen_at < ${now}::timestamptz - interval '1 second'`.pipe(Effect.asVoid))
    })

    yield* touch.pipe(
      Effect.catchAllCause((cause) => Effect.logWarning("waiting workers' presence not recorded; trying again", cause)),
      Effect.repeat(Schedule.spaced("2 seconds")),
      Effect.interruptible,
      Effect.forkScoped
    )
    return {} as const
  })
}) {}

export declare namespace Assignment {
  /** Runs between `queued` and `assigned`, with the wake-ups and the live feed that follow. */
  export interface Service {
    /** Assigns queued runs (of one environment, or all) and wakes their workers; answers the runs assigned. */
    readonly assignQueued: (environmentId?: string) => Effect.Effect<ReadonlyArray<Deadline>>
    /** Claim timeout: the run back to `queued`; answers its environment, or undefined when it moved on. */
    readonly releaseExpired: (runId: string) => Effect.Effect<string | undefined>
    /** Runs of offline workers back to `queued`; answers their environments. */
    readonly releaseOffline: Effect.Effect<ReadonlyArray<string>>
    /** A revoked worker's assigned runs back to `queued`; answers them. */
    readonly releaseWorker: (workerId: string) => Effect.Effect<ReadonlyArray<{ readonly id: string; readonly environment_id: string }>>
    /** A claim made for a poll that went away, undone; answers the new claim deadline, or undefined when the run moved on. */
    readonly unclaim: (runId: string, workerId: string) => Effect.Effect<Date | undefined>
  }
}

/**
 * Moves runs between `queued` and `assigned` (the statements are
 * `RunStore`'s, see `RunStore/SqlRunStore`), with what
 * follows on this instance: the assigned workers' waiting polls woken, the
 * live feed.
 */
export class Assignment extends Effect.Service<Assignment>()("Scheduler/Assignment", {
  effect: Effect.gen(function*() {
    const store = yield* RunStore
    const wakeups = yield* Wakeups
    const feed = yield* RunFeed

    /** `RunStore.assignQueued`, the workers given runs woken; answers the runs assigned. */
    const assignQueued = (environmentId?: string): Effect.Effect<ReadonlyArray<Deadline>> =>
      Effect.gen(function*() {
        const assigned = yield* store.assignQueued(environmentId)
        yield* Effect.forEach(new Set(assigned.map((r) => r.worker_id)), wakeups.wake, { discard: true })
        yield* feed.announce(new Set(assigned.map((r) => r.environment_id)))
        if (assigned.length > 0) yield* Effect.logDebug("runs assigned").pipe(Effect.annotateLogs({ count: assigned.length }))
        return assigned.map(({ deadline_at, environment_id, id }) => ({ id, environment_id, deadline_at }))
      }).pipe(hotSpan("Assignment.assignQueued"))

    /** Claim timeout (`RunStore.releaseExpired`): answers the run's environment, or undefined when it moved on. */
    const releaseExpired = (runId: string): Effect.Effect<string | undefined> =>
      Effect.gen(function*() {
        const rows = yield* store.releaseExpired(runId)
        yield* feed.announce(rows.map((r) => r.environment_id))
        return rows[0]?.environment_id
      }).pipe(hotSpan("Assignment.releaseExpired"))

    /** Runs of offline workers back to `queued` (`RunStore.releaseOffline`); answers their environments. */
    const releaseOffline: Effect.Effect<ReadonlyArray<string>> = Effect.gen(function*() {
      const rows = yield* store.releaseOffline
      if (rows.length > 0) yield* Effect.logInfo("runs of offline workers released").pipe(Effect.annotateLogs({ count: rows.length }))
      const environments = [...new Set(rows.map((r) => r.environment_id))]
      yield* feed.announce(environments)
      return environments
    }).pipe(hotSpan("Assignment.releaseOffline"))

    /** A revoked worker's assigned runs back to `queued` (`RunStore.releaseWorker`); answers them. */
    const releaseWorker = (workerId: string): Effect.Effect<ReadonlyArray<{ readonly id: string; readonly environment_id: string }>> =>
      store.releaseWorker(workerId).pipe(Effect.withSpan("Assignment.releaseWorker"))

    /** `RunStore.unclaim`: answers the new claim deadline, or undefined when the run moved on. */
    const unclaim = (runId: string, workerId: string): Effect.Effect<Date | undefined> =>
      Effect.gen(function*() {
        const rows = yield* store.unclaim(runId, workerId)
        yield* feed.announce(rows.map((r) => r.environment_id))
        return rows[0]?.deadline_at
      }).pipe(hotSpan("Assignment.unclaim"))

    const service: Assignment.Service = { assignQueued, releaseExpired, releaseOffline, releaseWorker, unclaim }
    return service
  })
}) {}

/**
 * Assignment passes that do not pile up: one per environment ("*" for all)
 * at a time, the claim deadlines of what each assigns supervised (`watchAll`).
 */
export const makeAssignmentPasses = (deps: {
  readonly assignment: Assignment
  readonly watchAll: (runs: ReadonlyArray<Deadline>) => Effect.Effect<void>
  /** Where the extra passes others ask for run (the supervisor's scope). */
  readonly scope: Scope.Scope
}) => {
  const { assignment, scope, watchAll } = deps
  // The assignment pass running now, per environment ("*" for all): a call
  // arriving meanwhile only asks it for one more pass, so under load (a pass
  // per poll and per new run) passes do not pile up racing for the same runs.
  const passes = new Map<string, { again: boolean }>()

  /**
   * Assigns queued runs (of one environment, or all) and supervises their
   * claim deadlines. When a pass for the same scope is already running, the
   * call answers at once and that pass runs once more, so whatever was
   * queued before this call is assigned by the time the passes end.
   *
   * The caller that starts a pass waits for that one pass only: the extra
   * passes others ask for meanwhile run in a background fiber. Looping in
   * the caller would keep one poll (or run request) busy for as long as
   * requests keep arriving, and every run assigned to that worker would wait
   * as long.
   */
  const assignAndWatch = (environmentId?: string): Effect.Effect<ReadonlyArray<Deadline>> =>
    Effect.suspend(() => {
      const key = environmentId ?? "*"
      const running = passes.get(key)
      if (running !== undefined) {
        running.again = true
        return Effect.succeed([])
      }
      const pass = { again: false }
      passes.set(key, pass)
      const once = Effect.tap(assignment.assignQueued(environmentId), watchAll)
      const more = () => {
        const again = pass.again
        pass.again = false
        return again
      }
      const done = Effect.sync(() => passes.delete(key))
      const rest = once.pipe(Effect.repeat({ while: more }), Effect.ensuring(done))
      // Uninterruptible: a caller that goes away must not drop the extra passes others asked for.
      return once.pipe(
        // Interruptible: forked here it would inherit this region's flags and hold up shutdown.
        Effect.tap(() => more() ? Effect.asVoid(Effect.forkIn(Effect.interruptible(rest), scope)) : done),
        Effect.onError(() => done),
        Effect.uninterruptible
      )
    })

  return assignAndWatch
}

/** A trigger's rules with its schema compiled, as of the version they were read at. */
export interface CompiledRules extends InputRules {
  /** Undefined when the trigger declares no schema: any input goes. */
  readonly check: InputSchema.InputCheck | undefined
}

/** Triggers whose compiled rules are kept; past it the oldest entry goes (a later request reads it again). */
const maxEntries = 10_000

/**
 * Run inputs checked against their trigger's `inputSchema`, for run creation
 * (every front door comes through it). The schema is compiled once per
 * trigger version (`id` + `updated_at`) and kept here, so a request costs a
 * map lookup and the check itself; the creating statement then only inserts
 * if the trigger is still at that version (`RunStore.createMany`'s
 * `inputVersion`), so a change on another instance is never missed: that
 * request finds nothing created, and `refresh` reads the trigger again.
 */
export const makeInputChecks = (store: RunStore.Service) => {
  const cache = new Map<string, CompiledRules>()

  const compiled = (rules: InputRules): CompiledRules => {
    if (rules.inputSchema === null) return { ...rules, check: undefined }
    const schema = InputSchema.compile(rules.inputSchema)
    // Checked when saved; should a stored schema no longer compile (another Ajv), runs are refused, never let through unchecked.
    const check: InputSchema.InputCheck = "check" in schema
      ? schema.check
      : () => [{ path: "input", message: `cannot be checked: the trigger's inputSchema is not usable (${schema.problem})` }]
    return { ...rules, check }
  }

  /** Reads the trigger's rules (undefined: no such live trigger) and keeps them. */
  const refresh = (triggerId: string): Effect.Effect<CompiledRules | undefined> =>
    Effect.map(store.inputRules(triggerId), (rules) => {
      cache.delete(triggerId)
      if (rules === undefined) return undefined
      const entry = compiled(rules)
      if (cache.size >= maxEntries) cache.delete(cache.keys().next().value!)
      cache.set(triggerId, entry)
      return entry
    })

  /**
   * The trigger's rules: kept ones (`fresh: false`: the creating statement
   * checks they are current, and a refusal by them is checked again), else
   * read now.
   */
  const rules = (triggerId: string): Effect.Effect<{ readonly rules: CompiledRules | undefined; readonly fresh: boolean }> => {
    const kept = cache.get(triggerId)
    return kept !== undefined
      ? Effect.succeed({ rules: kept, fresh: false })
      : Effect.map(refresh(triggerId), (rules) => ({ rules, fresh: true }))
  }

  /**
   * Why the request may not become a run, or undefined when it may: its
   * tags and the trigger's default tags together are at most `maxTags`, and
   * its input (the trigger's when it gives none) must match the trigger's
   * schema. The 400 names each failing path of the input.
   */
  const refusal = (rules: CompiledRules, request: CreateRequest): ValidationError | undefined => {
    const key = concurrencyKeyOf(rules, request)
    if (typeof key === "object") return ValidationError.field("input", key.problem)
    if (request.tags !== undefined && request.tags.length > 0) {
      const tags = new Set([...rules.defaultTags, ...request.tags])
      if (tags.size > maxTags) {
        return ValidationError.field("tags", `a run has at most ${maxTags} tags, the trigger's ${rules.defaultTags.length} default tags included`)
      }
    }
    if (rules.check === undefined) return undefined
    const input = request.input === undefined ? rules.input : request.input.value ?? null
    const problems = rules.check(input)
    if (problems === undefined) return undefined
    return new ValidationError({
      error: `input does not match the trigger's inputSchema: ${InputSchema.describe(problems)}`,
      details: new ValidationDetails({ fieldErrors: InputSchema.fieldErrors(problems), formErrors: [] })
    })
  }

  return { rules, refresh, refusal } as const
}

export type InputChecks = ReturnType<typeof makeInputChecks>

/** The longest concurrency key (as `RunsApi`'s `concurrencyKey`). */
const maxKeyLength = 200

/**
 * The concurrency key of a request's run: its own `concurrencyKey`, else the
 * field of its input (the trigger's when it gives none) that the trigger's
 * `keyFrom` names (a string, or a number as text; absent or null: none).
 * A field that cannot be a key is a problem to answer (400 on `input`).
 */
export const concurrencyKeyOf = (rules: InputRules, request: CreateRequest): string | undefined | { readonly problem: string } => {
  if (request.concurrencyKey !== undefined || rules.keyFrom === null) return request.concurrencyKey
  const input = request.input === undefined ? rules.input : request.input.value ?? null
  if (input === null || typeof input !== "object" || Array.isArray(input)) return undefined
  const value = (input as Record<string, unknown>)[rules.keyFrom]
  if (value === undefined || value === null) return undefined
  const key = typeof value === "string" ? value : typeof value === "number" ? String(value) : undefined
  if (key === undefined) {
    return { problem: `field "${rules.keyFrom}" is the trigger's concurrency keyFrom: it must be a string or a number` }
  }
  if (key.length > maxKeyLength || key.length === 0) {
    return { problem: `field "${rules.keyFrom}" is the trigger's concurrency keyFrom: it must be 1 to ${maxKeyLength} characters` }
  }
  return key
}

/** The request with its run's concurrency key resolved (see `concurrencyKeyOf`; refused requests never get here). */
const withConcurrencyKey = (rules: InputRules, request: CreateRequest): CreateRequest => {
  const key = concurrencyKeyOf(rules, request)
  return typeof key === "string" && key !== request.concurrencyKey ? { ...request, concurrencyKey: key } : request
}

/**
 * What a run request came to: its run (`Created`), a refusal of its input
 * (400: it does not match the trigger's `inputSchema`; nothing was stored),
 * or undefined when there is no such live trigger.
 */
export type Requested = Created | ValidationError | undefined

/** How many times a request whose trigger changed under it is checked again against the new version. */
const maxRechecks = 2

/**
 * New runs, dispatched: created by the run store with the placement rules
 * (offered to the `claim=true` polls waiting here), then what each needs on
 * this instance: its claim deadline supervised and its worker's poll woken,
 * or an assignment pass when it was left queued.
 */
export const makeRunCreation = (deps: {
  readonly config: TuningShape
  readonly store: RunStore.Service
  readonly assignment: Assignment
  readonly wakeups: Wakeups
  readonly feed: RunFeed
  readonly alarm: DueAlarm
  readonly watch: (runId: string, deadlineMs: number) => Effect.Effect<void>
  readonly assignAndWatch: (environmentId?: string) => Effect.Effect<ReadonlyArray<Deadline>>
}) => {
  const { alarm, assignAndWatch, assignment, config, feed, store, wakeups, watch } = deps

  /** The rules run creation uses to assign a new run in its own statement. */
  const placement: Placement = {
    claimTimeoutSeconds: config.claimTimeoutSeconds,
    workerOfflineAfterSeconds: config.workerOfflineAfterSeconds,
    maxAssignedPerWorker: config.maxAssignedPerWorker,
    activeWorkerSeconds: config.activeWorkerSeconds,
    channel: assignedChannel
  }

  /**
   * After run requests: a run placed by its creating statement gets its
   * claim deadline supervised and its worker's poll woken here (other
   * instances' polls wake on the statement's NOTIFY); runs left queued get
   * an assignment pass (one for the lot).
   */
  const requested = (created: ReadonlyArray<Created | undefined>): Effect.Effect<void> =>
    Effect.suspend(() => {
      const queuedIn = new Set<string>()
      const effects: Array<Effect.Effect<unknown>> = []
      const environments = new Set<string>()
      const waiting: Array<RunRow> = []
      for (const run of created) {
        if (run === undefined || !run.created) continue
        environments.add(run.run.environment_id)
        // Delayed, or with a time-to-live: the due loop's to watch.
        if (run.run.delayed || run.run.expires_at !== null) waiting.push(run.run)
        if (run.run.delayed) continue
        if (run.assigned === undefined) {
          queuedIn.add(run.run.environment_id)
          continue
        }
        effects.push(watch(run.run.id, run.assigned.deadlineAt.getTime()))
        // A run claimed for a waiting poll was handed to it already (see `createRuns`).
        if (run.assigned.claimed === undefined) effects.push(wakeups.wake(run.assigned.workerId))
      }
      for (const environmentId of queuedIn) effects.push(assignAndWatch(environmentId))
      effects.push(feed.announce(environments))
      if (waiting.length > 0) effects.push(alarm.ring(waiting))
      return Effect.all(effects, { discard: true })
    })

  /** Undoes a run claimed for a poll that went away meanwhile: assigned to its worker, for its next poll. */
  const unclaim = (claimed: PolledRow) =>
    assignment.unclaim(claimed.id, claimed.worker_id!).pipe(
      Effect.flatMap((deadline) =>
        deadline === undefined ? Effect.void : Effect.zipRight(watch(claimed.id, deadline.getTime()), wakeups.wake(claimed.worker_id!))
      ),
      Effect.zipLeft(Effect.logInfo("handed-over run's poll had gone; claim undone").pipe(Effect.annotateLogs({ runId: claimed.id })))
    )

  /**
   * Creates runs of one trigger (`RunStore.createMany`) with the placement
   * rules, then supervises what it created (`requested`). It offers the
   * statement the `claim=true` polls waiting here in the runs' environment:
   * a run placed on one of their workers is claimed in that statement and
   * handed to the poll, which then needs no statement of its own. Should
   * that poll have gone away meanwhile, the claim is undone (the run is
   * assigned to the worker, for its next poll).
   */
  const createPlaced = (
    triggerId: string,
    requests: ReadonlyArray<CreateRequest>,
    options: {
      readonly environmentId?: string | undefined
      readonly advance?: Advance | undefined
      readonly inputVersion?: string | undefined
    }
  ): Effect.Effect<ReadonlyArray<Created | undefined>> =>
    Effect.uninterruptibleMask((restore) => {
      const reservation = wakeups.reserve(options.environmentId)
      const create = (placement: Placement) => store.createMany(triggerId, requests, { ...options, placement })
      // Plain long polls waiting here are preferred among equals too (they take a run at once).
      const polling = wakeups.pollingWorkers()
      const preferred = polling.length === 0 ? placement : { ...placement, waiting: polling }
      const created = reservation.workerIds.length === 0
        ? restore(create(preferred))
        : restore(create({ ...preferred, claimFor: reservation.workerIds, startFor: reservation.startFor })).pipe(
          Effect.onExit((exit) => {
            const claimed = Exit.isSuccess(exit)
              ? exit.value.flatMap((run) => run?.assigned?.claimed === undefined ? [] : [run.assigned.claimed])
              : []
            return Effect.forEach(reservation.settle(claimed), unclaim, { discard: true })
          })
        )
      // Part of creating, so no caller can forget it: an unsupervised run would wait for the sweep.
      return Effect.tap(created, requested)
    })

  const inputs = makeInputChecks(store)

  /**
   * New runs of one trigger, through every front door (run requests over
   * HTTP, MCP and the embedding API, and schedule ticks): each request's
   * input (the trigger's when it gives none) is checked against the
   * trigger's `inputSchema` first, and a request that fails is answered its
   * `ValidationError` and stores nothing. The rest are created by
   * `createPlaced`, on condition that the trigger is still at the version its
   * rules were read at; a request that created nothing because the trigger
   * changed meanwhile is checked again against the new version.
   */
  const createRuns = (
    triggerId: string,
    requests: ReadonlyArray<CreateRequest>,
    options: { readonly environmentId?: string | undefined; readonly advance?: Advance | undefined } = {}
  ): Effect.Effect<ReadonlyArray<Requested>> =>
    Effect.gen(function*() {
      const results: Array<Requested> = requests.map(() => undefined)
      let { fresh, rules } = yield* inputs.rules(triggerId)
      let pending = requests.map((_, i) => i)
      for (let round = 0;; round++) {
        for (const i of pending) results[i] = undefined
        // No such trigger here: as the statement would answer, without one (and without telling another environment's rules).
        if (rules === undefined || (options.environmentId !== undefined && rules.environmentId !== options.environmentId)) return results
        const accepted: Array<number> = []
        const refused: Array<number> = []
        for (const i of pending) {
          const refusal = inputs.refusal(rules, requests[i]!)
          if (refusal === undefined) accepted.push(i)
          else {
            results[i] = refusal
            refused.push(i)
          }
        }
        // A refusal is final only by the trigger as it is now: kept rules may predate a change (a schema
        // loosened, an input given), which no statement ran to notice. Refusals are rare; read it again.
        if (refused.length > 0 && !fresh) {
          const now = yield* inputs.refresh(triggerId)
          fresh = true
          if (now === undefined || now.version !== rules.version) {
            rules = now
            pending = [...accepted, ...refused].sort((a, b) => a - b)
            continue
          }
        }
        if (accepted.length === 0) return results
        const keyed = accepted.map((i) => withConcurrencyKey(rules!, requests[i]!))
        const created = yield* createPlaced(triggerId, keyed, { ...options, inputVersion: rules.version })
        const missed: Array<number> = []
        created.forEach((run, k) => {
          if (run === undefined) missed.push(accepted[k]!)
          else results[accepted[k]!] = run
        })
        if (missed.length === 0 || round >= maxRechecks) return results
        // Nothing created: the trigger is gone, or changed since its rules were read (then check against the new ones).
        const now = yield* inputs.refresh(triggerId)
        if (now === undefined || now.version === rules.version) return results
        rules = now
        fresh = true
        pending = missed
      }
    })

  return createRuns
}
