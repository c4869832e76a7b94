import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { Notifications } from "../Db/Notifications.js"
import type { PolledRow } from "../Domain/Run.js"
import { assignedChannel } from "../RunStore/Assignment.js"

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
  /**
   * Hands each of `rows` (claimed for `row.worker_id`) to one of that
   * worker's polls; answers the rows no poll was left to take.
   */
  readonly settle: (rows: ReadonlyArray<PolledRow>) => ReadonlyArray<PolledRow>
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
    const waiting = new Map<string, Set<Deferred.Deferred<void>>>()

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
        return Effect.forEach(set, (d) => Deferred.succeed(d, undefined), { discard: true })
      })

    /**
     * Offers a poll that found nothing since `since` (its `generationOf`
     * before it looked); undefined when a wake-up came in between, so it
     * looks again instead. The offer exists only while the poll waits on it.
     */
    const offer = (workerId: string, environmentId: string, since: number): Effect.Effect<Offer | undefined> =>
      Effect.sync(() => {
        if (generationOf(workerId) !== since) return undefined
        const offer: Offer = { workerId, environmentId, state: "open", finishing: false, abandoned: false, rows: [], resume: undefined }
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
      if (set === undefined) return { workerIds: [], settle: (rows) => rows }
      const reserved = [...set]
      offers.delete(environmentId!)
      for (const offer of reserved) offer.state = "reserved"
      return {
        workerIds: [...new Set(reserved.map((o) => o.workerId))],
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
     * runs, so an assignment in between is not missed.
     */
    const subscribe = (workerId: string): Effect.Effect<Effect.Effect<void>, never, Scope.Scope> =>
      Effect.acquireRelease(
        Effect.map(Deferred.make<void>(), (deferred) => {
          const set = waiting.get(workerId) ?? new Set()
          set.add(deferred)
          waiting.set(workerId, set)
          return deferred
        }),
        (deferred) =>
          Effect.sync(() => {
            const set = waiting.get(workerId)
            if (set === undefined) return
            set.delete(deferred)
            if (set.size === 0) waiting.delete(workerId)
          })
      ).pipe(Effect.map((deferred) => Deferred.await(deferred)))

    // Another instance's assignments arrive here; our own do too, harmlessly
    // (the in-process wake-up already happened, nobody is waiting any more).
    yield* notifications.listen(assignedChannel).pipe(
      Stream.runForEach(wake),
      Effect.tapErrorCause((cause) => Effect.logWarning("LISTEN for assignments failed; retrying", cause)),
      Effect.retry(Schedule.spaced("1 second")),
      Effect.forkScoped
    )

    /** Workers with a poll waiting on this instance. */
    const waitingWorkers = (): ReadonlyArray<string> => [...new Set([...waiting.keys(), ...offersOf.keys()])]

    return { wake, subscribe, generationOf, offer, awaitOffer, finishOffer, abandon, reserve, waitingWorkers } as const
  })
}) {}
