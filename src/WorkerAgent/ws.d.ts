// The `ws` package's client, as the worker agent uses it (Node 20 has no global WebSocket).
declare module "ws" {
  import type { IncomingMessage } from "node:http"
  export class WebSocket {
    constructor(url: string, options?: { readonly headers?: Record<string, string> })
    on(event: "unexpected-response", listener: (request: unknown, response: IncomingMessage) => void): this
    on(event: "open" | "close" | "error", listener: (...args: Array<any>) => void): this
    close(code?: number): void
    terminate(): void
  }
  export default WebSocket
}
