import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as FiberId from "effect/FiberId"

/**
 * One check shared by the callers that arrive while it is in flight: each
 * caller's answer comes from a check that finished after the caller asked,
 * but a burst of callers (a load balancer's health checks, a benchmark) runs
 * it once. A finished check is never reused: the next caller starts a new one.
 *
 * The check runs uninterruptibly in the first caller's fiber (it must be
 * bounded, e.g. by a timeout), so a caller that goes away cannot leave the
 * others waiting on a check nobody finishes.
 */
export const make = <A>(check: Effect.Effect<A>): Effect.Effect<A> => {
  let inFlight: Deferred.Deferred<A> | undefined
  return Effect.suspend(() => {
    if (inFlight !== undefined) return Deferred.await(inFlight)
    const answer = Deferred.unsafeMake<A>(FiberId.none)
    inFlight = answer
    return Effect.uninterruptible(Effect.tap(check, (a) => {
      inFlight = undefined
      return Deferred.succeed(answer, a)
    }))
  })
}
