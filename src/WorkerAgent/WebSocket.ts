import WS from "ws"
import type { WebSocketFactory } from "../WorkerSdk/WorkerSdk.js"

/**
 * The agent's WebSocket for the worker channel: the `ws` client (Node 20 has
 * no global WebSocket, and a browser-style one cannot send the token header).
 */
export const webSocket: WebSocketFactory = (url, options) => new WS(url, { headers: options.headers }) as unknown as ReturnType<WebSocketFactory>
