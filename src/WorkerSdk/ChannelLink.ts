import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Predicate from "effect/Predicate"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as SubscriptionRef from "effect/SubscriptionRef"
import * as Stream from "effect/Stream"
import { type ChannelClient, connect, type WebSocketFactory } from "./Channel.js"
import { describe } from "./Transient.js"

/**
 * The worker's connection to the channel, kept open for as long as its scope:
 * each connection serves until something over it fails (the socket dropped,
 * the service closed it), then a fresh one is opened with backoff. A fresh
 * connection each time means a fresh slot count on the service's side.
 */
export interface ChannelLink {
  /** The current connection's client; waits while there is none. */
  readonly current: Effect.Effect<ChannelClient>
  /** Something over `client` failed: replace the connection. */
  readonly broken: (client: ChannelClient) => Effect.Effect<void>
  /** `call` on the current connection; a transport failure marks the connection broken (and fails the call, to be retried). */
  readonly use: <A, E>(call: (client: ChannelClient) => Effect.Effect<A, E>) => Effect.Effect<A, E>
}

export const make = (
  baseUrl: string,
  token: Redacted.Redacted<string>,
  webSocket: WebSocketFactory,
  backoff: Schedule.Schedule<unknown, unknown>
): Effect.Effect<ChannelLink, never, Scope.Scope> =>
  Effect.gen(function*() {
    const state = yield* SubscriptionRef.make<{ readonly client: ChannelClient; readonly done: Deferred.Deferred<void> } | undefined>(undefined)

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
      }
    }).pipe(Effect.forkScoped)

    const current: Effect.Effect<ChannelClient> = state.changes.pipe(
      Stream.filter(Predicate.isNotUndefined),
      Stream.map((now) => now.client),
      Stream.take(1),
      Stream.runHead,
      Effect.flatMap((client) => client._tag === "Some" ? Effect.succeed(client.value) : Effect.never)
    )

    const broken = (client: ChannelClient) =>
      Effect.flatMap(SubscriptionRef.get(state), (now) =>
        now !== undefined && now.client === client ? Deferred.succeed(now.done, undefined) : Effect.void)

    const use = <A, E>(call: (client: ChannelClient) => Effect.Effect<A, E>) =>
      Effect.flatMap(current, (client) =>
        Effect.tapError(call(client), (error) =>
          Predicate.isTagged(error, "RpcClientError")
            ? Effect.zipRight(Effect.logDebug("worker channel call failed").pipe(Effect.annotateLogs({ reason: describe(error) })), broken(client))
            : Effect.void))

    return { current, broken, use }
  })
