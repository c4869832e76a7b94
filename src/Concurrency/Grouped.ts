import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberSet from "effect/FiberSet"
import type * as Scope from "effect/Scope"
import * as Detached from "./Detached.js"

interface Pending<I, O, E> {
  readonly item: I
  readonly resume: (result: Effect.Effect<O, E>) => void
}

/** Calls for one key: the items waiting for the next statement. */
interface Group<I, O, E> {
  readonly queue: Array<Pending<I, O, E>>
}

export interface GroupedOptions<I, O, E> {
  /** The most items one `run` gets. */
  readonly max: number
  /** Items with the same id never share a `run` (one statement must not name a row twice). */
  readonly id?: ((item: I) => string) | undefined
  /** Does the work for a group: one answer per item, in order. */
  readonly run: (key: string, items: ReadonlyArray<I>) => Effect.Effect<ReadonlyArray<Effect.Effect<O, E>>>
}

/**
 * Group commit for any per-key call: while a call for a key is in flight,
 * further calls for that key wait, and the next `run` takes all of them (up
 * to `max`). A call that finds nothing in flight goes at once, so grouping
 * adds no wait at idle; under load a group is whatever arrived during the
 * previous round trip. Each caller gets its own item's answer.
 *
 * The runs happen in fibers of the scope this is made in (interrupted when
 * it closes, and whoever still waits is interrupted too), not in the caller
 * that happened to start the group: the run serves every caller in it. A
 * caller that leaves before its run starts is dropped from it; once the run
 * has started, its item is done regardless (as with any request whose client
 * hangs up mid-statement).
 */
export const make = <I, O, E>(options: GroupedOptions<I, O, E>): Effect.Effect<(key: string, item: I) => Effect.Effect<O, E>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const groups = new Map<string, Group<I, O, E>>()
    const fibers = yield* FiberSet.make()
    const fork = yield* Detached.forker

    /** The next group: up to `max` items, no two with the same id (those wait for the one after). */
    const take = (group: Group<I, O, E>): Array<Pending<I, O, E>> => {
      if (options.id === undefined) return group.queue.splice(0, options.max)
      const taken: Array<Pending<I, O, E>> = []
      const ids = new Set<string>()
      for (let i = 0; i < group.queue.length && taken.length < options.max;) {
        const id = options.id(group.queue[i]!.item)
        if (ids.has(id)) {
          i++
          continue
        }
        ids.add(id)
        taken.push(...group.queue.splice(i, 1))
      }
      return taken
    }

    /**
     * Runs for the group's queue, one after another, until it is empty. A
     * loop, not a recursion: under steady load a key's queue may never empty,
     * and each recursive step would keep a frame.
     */
    const drain = (key: string, group: Group<I, O, E>): Effect.Effect<void> => {
      let batch: Array<Pending<I, O, E>> = []
      const once = Effect.suspend(() => {
        batch = take(group)
        if (batch.length === 0) {
          groups.delete(key)
          return Effect.succeed(false)
        }
        return Effect.map(Effect.exit(options.run(key, batch.map((pending) => pending.item))), (exit) => {
          batch.forEach((pending, i) =>
            pending.resume(Exit.isSuccess(exit) ? exit.value[i] ?? Effect.dieMessage("no answer for an item") : Effect.failCause(exit.cause))
          )
          batch = []
          return true
        })
      })
      return once.pipe(
        Effect.repeat({ while: (more) => more }),
        Effect.asVoid,
        // Shutting down: whoever still waits is told, not left hanging.
        Effect.onInterrupt(() =>
          Effect.sync(() => {
            groups.delete(key)
            for (const pending of [...batch, ...group.queue.splice(0)]) pending.resume(Effect.interrupt)
          })
        )
      )
    }

    return (key: string, item: I): Effect.Effect<O, E> =>
      Effect.async<O, E>((resume) => {
        const pending: Pending<I, O, E> = { item, resume }
        const waiting = groups.get(key)
        if (waiting !== undefined) {
          waiting.queue.push(pending)
          return Effect.sync(() => {
            const at = waiting.queue.indexOf(pending)
            if (at >= 0) waiting.queue.splice(at, 1)
          })
        }
        const group: Group<I, O, E> = { queue: [pending] }
        groups.set(key, group)
        FiberSet.unsafeAdd(fibers, fork(drain(key, group)))
      })
  })
