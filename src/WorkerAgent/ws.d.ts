// The `ws` package's client, as the worker agent (Node 20 has no global WebSocket) and the bench's channel client use it.
declare module "ws" {
  import type { IncomingMessage } from "node:http"
  export class WebSocket {
    static readonly OPEN: 1
    constructor(url: string, options?: { readonly headers?: Record<string, string>; readonly perMessageDeflate?: boolean })
    readonly readyState: 0 | 1 | 2 | 3
    on(event: "unexpected-response", listener: (request: unknown, response: IncomingMessage) => void): this
    on(event: "message", listener: (data: Buffer, isBinary: boolean) => void): this
    on(event: "open" | "close" | "error", listener: (...args: Array<any>) => void): this
    once(event: "unexpected-response", listener: (request: unknown, response: IncomingMessage) => void): this
    once(event: "open" | "close" | "error", listener: (...args: Array<any>) => void): this
    send(data: string): void
    close(code?: number): void
    terminate(): void
  }
  export default WebSocket
}
