import * as Socket from "@effect/platform/Socket"
import * as RpcClient from "@effect/rpc/RpcClient"
import type { RpcClientError } from "@effect/rpc/RpcClientError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import { defaultRetrySchedule } from "./Transient.js"
import { channelPath, serialization, WorkerRpcs } from "../Contract/WorkerChannelRpcs.js"

/** The socket a WebSocket constructor answers (`globalThis.WebSocket` where the runtime has one). */
export type WebSocketLike = ReturnType<typeof Socket.WebSocketConstructor.Service>

/**
 * Opens a WebSocket with request headers (the channel sends the worker's
 * token as `Authorization`). Node 20 has no global WebSocket: give one built
 * on the `ws` package, e.g. `(url, { headers }) => new WS(url, { headers })`.
 */
export type WebSocketFactory = (url: string, options: { readonly headers: Record<string, string> }) => WebSocketLike

/** The runtime's own WebSocket, when it has one that takes headers (Node 22+, Bun, Deno). */
export const globalWebSocket: WebSocketFactory | undefined = "WebSocket" in globalThis
  ? (url, options) => new (globalThis as any).WebSocket(url, { headers: options.headers })
  : undefined

export type ChannelClient = RpcClient.FromGroup<typeof WorkerRpcs, RpcClientError>

/** The channel's URL for a service origin (`http://host` → `ws://host/api/v1/workers/me/channel`). */
export const channelUrl = (baseUrl: string): string => baseUrl.replace(/^http/, "ws") + channelPath

/**
 * A client of the worker channel for the enclosing scope. The socket is
 * reopened after it drops (every `reconnect` delay): calls made meanwhile
 * fail with an `RpcClientError`, which the worker retries as transient.
 * The default is REST's: from 250 ms, doubling, jittered (a fleet does not
 * reconnect in step), at most 2 s apart, so a worker is back within about
 * 2 s of the service answering.
 */
export const connect = (
  baseUrl: string,
  token: Redacted.Redacted<string>,
  webSocket: WebSocketFactory,
  reconnect: Schedule.Schedule<unknown, unknown> = defaultRetrySchedule
): Effect.Effect<ChannelClient, never, Scope.Scope> => {
  const headers = { authorization: `Bearer ${Redacted.value(token)}` }
  const protocol = RpcClient.layerProtocolSocket({ retrySchedule: reconnect as Schedule.Schedule<unknown, Socket.SocketError> }).pipe(
    Layer.provide(Layer.scoped(Socket.Socket, Socket.makeWebSocket(channelUrl(baseUrl), { openTimeout: "10 seconds" }))),
    Layer.provide(Layer.succeed(Socket.WebSocketConstructor, (url) => webSocket(url, { headers }))),
    Layer.provide(serialization)
  )
  // Built into the caller's scope: the socket lives as long as the client.
  return Effect.flatMap(Layer.build(protocol), (context) => Effect.provide(RpcClient.make(WorkerRpcs), context))
}
