import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import WS from "ws"
import type * as Scope from "effect/Scope"
import { webSocket } from "../../src/WorkerAgent/WebSocket.js"
import { channelUrl, type ChannelClient, connect } from "../../src/WorkerSdk/Channel.js"

/** Node 20 has no global WebSocket: the `ws` client, with headers (the CLI's). */
export const nodeWebSocket = webSocket

/** A channel client for a worker's token. */
export const channel = (baseUrl: string, token: string): Effect.Effect<ChannelClient, never, Scope.Scope> =>
  connect(baseUrl, Redacted.make(token), nodeWebSocket)

/** An upgrade request the service refuses: its status and JSON body. */
export const refusedUpgrade = (baseUrl: string, headers: Record<string, string>) =>
  Effect.async<{ readonly status: number; readonly body: unknown }>((resume) => {
    const socket = new WS(channelUrl(baseUrl), { headers })
    socket.on("unexpected-response", (_request, response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8")
        resume(Effect.succeed({ status: response.statusCode ?? 0, body: text.length > 0 ? JSON.parse(text) : undefined }))
      })
    })
    socket.on("open", () => {
      socket.close()
      resume(Effect.dieMessage("the upgrade was accepted"))
    })
    socket.on("error", () => undefined)
  })
