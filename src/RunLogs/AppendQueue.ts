import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import type * as Scope from "effect/Scope"
import * as Detached from "../Concurrency/Detached.js"

/** What a group's run answers for one of its items: its result, or `Again` to put it in the next group. */
export type Outcome<O, E> = Exit.Exit<O, E> | "Again"

export interface AppendQueueOptions<I, O, E> {
  /** A group starts at most this often: under load the calls of one interval share one group. */
  readonly intervalMillis: number
  /** A group takes items up to this weight (at least one item). */
  readonly maxWeight: number
  readonly weight: (item: I) => number
  /** Does the work for a group: one outcome per item, in order. A failure or defect answers every item with it. */
  readonly run: (items: ReadonlyArray<I>) => Effect.Effect<ReadonlyArray<Outcome<O, E>>, E>
}

const liveClock = Clock.make()

interface Pending<I, O, E> {
  readonly item: I
  readonly resume: (result: Effect.Effect<O, E>) => void
  left: boolean
}

/**
 * One writer for many callers: every call waits in one queue, and one fiber
 * takes all that wait (up to `maxWeight`) as a group, at most once per
 * `intervalMillis`. A call that finds the writer idle and the last group
 * older than the interval goes at once, so a lone call waits for nothing;
 * under load the number of groups (statements, transactions, NOTIFYs) is
 * bounded by the interval whatever the number of callers, and each group
 * carries what arrived meanwhile. Callers who wait for their answer (as a
 * worker waits for its log call) are thereby paced too: a chatty one sends
 * bigger calls, not more of them.
 *
 * A caller that leaves before its group starts is dropped from the queue;
 * once its group has started its item is done regardless. The writer is a
 * fiber of the scope this is made in; when it closes, whoever waits is
 * interrupted.
 */
export const make = <I, O, E>(options: AppendQueueOptions<I, O, E>): Effect.Effect<(item: I) => Effect.Effect<O, E>, never, Scope.Scope> =>
  Effect.gen(function*() {
    let queue: Array<Pending<I, O, E>> = []
    let wake: (() => void) | undefined
    let lastStart = 0

    const take = (): Array<Pending<I, O, E>> => {
      const taken: Array<Pending<I, O, E>> = []
      let weight = 0
      let i = 0
      for (; i < queue.length; i++) {
        const pending = queue[i]!
        if (pending.left) continue
        const w = options.weight(pending.item)
        if (taken.length > 0 && weight + w > options.maxWeight) break
        taken.push(pending)
        weight += w
      }
      queue = queue.slice(i)
      return taken
    }

    const waitForItems = Effect.async<void>((resume) => {
      if (queue.some((p) => !p.left)) return resume(Effect.void)
      wake = () => {
        wake = undefined
        resume(Effect.void)
      }
      return Effect.sync(() => {
        wake = undefined
      })
    })

    const runGroup = (group: ReadonlyArray<Pending<I, O, E>>) =>
      Effect.map(Effect.exit(options.run(group.map((p) => p.item))), (exit) => {
        const again: Array<Pending<I, O, E>> = []
        group.forEach((pending, i) => {
          const outcome: Outcome<O, E> = Exit.isSuccess(exit) ? exit.value[i] ?? Exit.die("no answer for an item") : Exit.failCause(exit.cause)
          if (outcome === "Again") again.push(pending)
          else pending.resume(outcome)
        })
        // First in the next group: they waited longest.
        queue = [...again, ...queue]
      })

    let current: ReadonlyArray<Pending<I, O, E>> = []
    const loop = Effect.gen(function*() {
      yield* waitForItems
      const wait = lastStart + options.intervalMillis - Date.now()
      // On the wall clock, whatever clock the service was built under: the pace is real time.
      if (wait > 0) yield* Effect.withClock(Effect.sleep(wait), liveClock)
      current = take()
      if (current.length === 0) return
      lastStart = Date.now()
      yield* runGroup(current)
      current = []
    }).pipe(
      Effect.forever,
      // Shutting down: whoever still waits is told, not left hanging.
      Effect.onInterrupt(() =>
        Effect.sync(() => {
          for (const pending of [...current, ...queue.splice(0)]) pending.resume(Effect.interrupt)
        })
      )
    )
    const fork = yield* Detached.forker
    const fiber = fork(loop)
    yield* Effect.addFinalizer(() => Fiber.interrupt(fiber))

    return (item: I): Effect.Effect<O, E> =>
      Effect.async<O, E>((resume) => {
        const pending: Pending<I, O, E> = { item, resume, left: false }
        queue.push(pending)
        wake?.()
        return Effect.sync(() => {
          pending.left = true
        })
      })
  })
