import * as Effect from "effect/Effect"

/**
 * A counting semaphore that hands each released permit to exactly one waiter,
 * oldest first. `Effect.makeSemaphore` (effect 3.x) resumes every waiter on a
 * release and all but one go back to waiting: with hundreds waiting (webhook
 * deliveries queued for a socket, statements queued for the embedded
 * database's single connection) that herd was most of the CPU they used.
 * Here a release passes the permit to the first waiter directly.
 */
export interface Permits {
  /** Waits for a permit (interruptibly); pair with `release`. */
  readonly take: Effect.Effect<void>
  readonly release: Effect.Effect<void>
  /** Runs `self` holding one permit, released however it ends. */
  readonly withPermit: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

export const make = (permits: number): Effect.Effect<Permits> =>
  Effect.sync(() => {
    let free = permits
    // A Set iterates in insertion order: the first entry is the oldest waiter.
    const waiters = new Set<() => void>()
    const grant = () => {
      while (free > 0 && waiters.size > 0) {
        const next = waiters.values().next().value!
        waiters.delete(next)
        free--
        next()
      }
    }
    const wait = Effect.async<void>((resume) => {
      let granted = false
      const waiter = () => {
        granted = true
        resume(Effect.void)
      }
      waiters.add(waiter)
      // Interrupted while waiting: leave the line, or hand on a permit that
      // was granted but will never be used.
      return Effect.sync(() => {
        if (!granted) {
          waiters.delete(waiter)
          return
        }
        free++
        grant()
      })
    })
    const take = Effect.suspend(() => {
      if (free > 0 && waiters.size === 0) {
        free--
        return Effect.void
      }
      return wait
    })
    const release = Effect.sync(() => {
      free++
      grant()
    })
    return {
      take,
      release,
      withPermit: (self) =>
        Effect.uninterruptibleMask((restore) => Effect.flatMap(restore(take), () => Effect.ensuring(restore(self), release)))
    } satisfies Permits
  })
