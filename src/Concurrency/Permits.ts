import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"

/**
 * A counting semaphore that hands each released permit to exactly one waiter,
 * oldest first. `Effect.makeSemaphore` (effect 3.x) resumes every waiter on a
 * release and all but one go back to waiting: with hundreds waiting (webhook
 * deliveries queued for a socket, statements queued for the embedded
 * database's single connection) that herd was most of the CPU they used.
 * Permits are tokens in a bounded queue: a release offers one, which
 * completes the first pending take.
 */
export interface Permits {
  /** Waits for a permit (interruptibly); pair with `release`. */
  readonly take: Effect.Effect<void>
  readonly release: Effect.Effect<void>
  /** Runs `self` holding one permit, released however it ends. */
  readonly withPermit: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

export const make = (permits: number): Effect.Effect<Permits> =>
  Effect.gen(function*() {
    const tokens = yield* Queue.bounded<void>(permits)
    yield* Queue.offerAll(tokens, Array.from({ length: permits }, () => undefined))
    const take = Queue.take(tokens)
    const release = Effect.asVoid(Queue.offer(tokens, undefined))
    return {
      take,
      release,
      withPermit: (self) => Effect.acquireUseRelease(take, () => self, () => release)
    } satisfies Permits
  })
