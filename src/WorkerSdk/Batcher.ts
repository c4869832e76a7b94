import * as Cause from "effect/Cause"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"

interface Pending<I, O, E> {
  readonly item: I
  readonly resume: (effect: Effect.Effect<O, E>) => void
}

/**
 * Coalesces one-run calls into batched requests: a call made while a request
 * is in flight goes out with the others in the next one (at most `max`). A
 * lone call goes out at once, so nothing waits for a batch to fill; under
 * load, each request carries what came in during the previous one, i.e. one
 * request per step per round trip.
 *
 * `send` answers each item's own outcome, in order; a failure of the whole
 * request fails every call of it.
 */
export const make = <I, O, E, SE>(
  max: number,
  send: (items: ReadonlyArray<I>) => Effect.Effect<ReadonlyArray<Effect.Effect<O, E>>, SE>
): Effect.Effect<(item: I) => Effect.Effect<O, E | SE>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const queue = yield* Queue.unbounded<Pending<I, O, E | SE>>()
    yield* Effect.gen(function*() {
      const batch = Chunk.toReadonlyArray(yield* Queue.takeBetween(queue, 1, max))
      const exit = yield* Effect.exit(send(batch.map((pending) => pending.item)))
      if (exit._tag === "Success") {
        batch.forEach((pending, i) => pending.resume(exit.value[i] ?? Effect.dieMessage("no answer for a batched call")))
      } else {
        const failure = Effect.failCause(exit.cause) as Effect.Effect<never, SE>
        for (const pending of batch) pending.resume(Cause.isInterruptedOnly(exit.cause) ? Effect.interrupt : failure)
      }
    }).pipe(Effect.forever, Effect.forkScoped)

    return (item) =>
      Effect.flatten(Effect.async<Effect.Effect<O, E | SE>>((resume) => {
        queue.unsafeOffer({ item, resume: (effect) => resume(Effect.succeed(effect)) })
      }))
  })
