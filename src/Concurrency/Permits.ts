import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"

/**
 * A counting semaphore that wakes one waiter per free permit, oldest first.
 * `Effect.makeSemaphore` (effect 3.x) resumes every waiter on a release and
 * all but one go back to waiting: with hundreds waiting (webhook deliveries
 * queued for a socket, statements queued for the embedded database's single
 * connection) that herd was most of the CPU they used.
 *
 * Interruption never loses a permit: a woken waiter takes its permit itself,
 * in the same uninterruptible step that installs its release, and a waiter
 * interrupted after being woken passes its turn on.
 */
export interface Permits {
  /** Runs `self` holding one permit, released however it ends. */
  readonly withPermit: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** Holds one permit until the scope closes. */
  readonly acquireScoped: Effect.Effect<void, never, Scope.Scope>
}

export const make = (permits: number): Effect.Effect<Permits> =>
  Effect.sync(() => {
    let free = permits
    // Woken waiters that have not taken their permit yet: it is kept for them.
    let woken = 0
    // A Set iterates in insertion order: the first entry is the oldest waiter.
    const waiters = new Set<() => void>()
    const wakeNext = () => {
      while (free - woken > 0 && waiters.size > 0) {
        const next = waiters.values().next().value!
        waiters.delete(next)
        woken++
        next()
      }
    }
    const release = Effect.sync(() => {
      free++
      wakeNext()
    })

    // Must run uninterruptibly; only the wait itself is `restore`d.
    const acquire = (restore: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>): Effect.Effect<void> =>
      Effect.suspend(() => {
        if (free - woken > 0) {
          free--
          return Effect.void
        }
        const turn = { woken: false }
        const wait = Effect.async<void>((resume) => {
          const waiter = () => {
            turn.woken = true
            resume(Effect.void)
          }
          waiters.add(waiter)
          return Effect.sync(() => {
            waiters.delete(waiter)
          })
        })
        return restore(wait).pipe(
          Effect.onInterrupt(() =>
            Effect.sync(() => {
              if (!turn.woken) return
              woken--
              wakeNext()
            })
          ),
          Effect.zipRight(Effect.suspend(() => {
            woken--
            return acquire(restore)
          }))
        )
      })

    return {
      withPermit: (self) =>
        Effect.uninterruptibleMask((restore) => Effect.zipRight(acquire(restore), Effect.ensuring(restore(self), release))),
      acquireScoped: Effect.uninterruptibleMask((restore) =>
        Effect.zipRight(acquire(restore), Effect.addFinalizer(() => release))
      )
    } satisfies Permits
  })
