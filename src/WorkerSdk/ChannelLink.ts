import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as SubscriptionRef from "effect/SubscriptionRef"
import * as Stream from "effect/Stream"
import { type ChannelClient, connect, type WebSocketFactory } from "./Channel.js"
import type { WorkerUnauthorized } from "./Errors.js"
import { describe } from "./Transient.js"

/**
 * The worker's connection to the channel, kept open for as long as its scope:
 * each connection serves until something over it fails (the socket dropped,
 * the service closed it), then a fresh one is opened with backoff. A fresh
 * connection each time means a fresh slot count on the service's side.
 *
 * Before each new connection the worker's token is checked (`check`, a REST
 * call): the service closes a revoked worker's channel, and a refused token
 * ends the link for good, every call on it then failing at once with
 * `WorkerUnauthorized` (a revoked worker stops at its next call instead of
 * retrying a connection that will never open).
 */
export interface ChannelLink {
  /** The current connection's client; waits while there is none; fails once the token was refused. */
  readonly current: Effect.Effect<ChannelClient, WorkerUnauthorized>
  /** Something over `client` failed: replace the connection. */
  readonly broken: (client: ChannelClient) => Effect.Effect<void>
  /**
   * `call` on the current connection; a failure of the connection (or a
   * defect) marks it broken and fails the call, to be retried.
   */
  readonly use: <A, E>(call: (client: ChannelClient) => Effect.Effect<A, E>) => Effect.Effect<A, E | WorkerUnauthorized>
}

export const make = (
  baseUrl: string,
  token: Redacted.Redacted<string>,
  webSocket: WebSocketFactory,
  backoff: Schedule.Schedule<unknown, unknown>,
  /** Whether the token is still good (retrying transient failures itself); fails when it was refused. */
  check: Effect.Effect<void, WorkerUnauthorized>
): Effect.Effect<ChannelLink, never, Scope.Scope> =>
  Effect.gen(function*() {
    const state = yield* SubscriptionRef.make<{ readonly client: ChannelClient; readonly done: Deferred.Deferred<void> } | undefined>(undefined)
    const refused = yield* Deferred.make<never, WorkerUnauthorized>()

    const connection = Effect.scoped(Effect.gen(function*() {
      // The rpc client's own reconnecting is left aside: a replaced connection is opened here.
      const client = yield* connect(baseUrl, token, webSocket, Schedule.spaced("1 day"))
      const done = yield* Deferred.make<void>()
      yield* SubscriptionRef.set(state, { client, done })
      yield* Deferred.await(done)
      yield* SubscriptionRef.set(state, undefined)
    }))
    // A connection that served a while resets the backoff; one that breaks at once waits longer each time.
    yield* Effect.gen(function*() {
      const driver = yield* Schedule.driver(backoff)
      while (true) {
        const started = yield* Clock.currentTimeMillis
        yield* connection
        if ((yield* Clock.currentTimeMillis) - started > 30_000) yield* driver.reset
        yield* Effect.orElse(driver.next(undefined), () => Effect.void)
        // Checked last, so a connection opens as soon as the service answers again.
        const verdict = yield* Effect.either(check)
        if (verdict._tag === "Left") {
          yield* Effect.logWarning("worker channel: the worker token was refused").pipe(Effect.annotateLogs({ reason: verdict.left.message }))
          return yield* Deferred.fail(refused, verdict.left)
        }
      }
    }).pipe(Effect.forkScoped)

    const open: Effect.Effect<ChannelClient> = state.changes.pipe(
      Stream.filter(Predicate.isNotUndefined),
      Stream.map((now) => now.client),
      Stream.take(1),
      Stream.runHead,
      Effect.flatMap((client) => client._tag === "Some" ? Effect.succeed(client.value) : Effect.never)
    )
    const current: Effect.Effect<ChannelClient, WorkerUnauthorized> = Effect.raceFirst(open, Deferred.await(refused))

    const broken = (client: ChannelClient) =>
      Effect.flatMap(SubscriptionRef.get(state), (now) =>
        now !== undefined && now.client === client ? Deferred.succeed(now.done, undefined) : Effect.void)

    const use = <A, E>(call: (client: ChannelClient) => Effect.Effect<A, E>): Effect.Effect<A, E | WorkerUnauthorized> =>
      Effect.flatMap(current, (client) =>
        Effect.tapErrorCause(call(client), (cause) => {
          // The connection failed (or died): open another. A typed refusal (the service's 503/500) leaves it open.
          const failure = Cause.failureOption(cause)
          const connectionFailed = Cause.isDie(cause) || (Option.isSome(failure) && Predicate.isTagged(failure.value, "RpcClientError"))
          return connectionFailed
            ? Effect.zipRight(Effect.logDebug("worker channel call failed").pipe(Effect.annotateLogs({ reason: describe(Cause.squash(cause)) })), broken(client))
            : Effect.void
        }))

    return { current, broken, use }
  })
