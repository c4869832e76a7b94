import { createServer, type Server } from "node:http"
import type { Duplex } from "node:stream"

/**
 * The Node HTTP server every entry point uses (the service, tests, embedding
 * programs that want our behaviour). Two things differ from `createServer()`:
 *
 * - Idle keep-alive connections are held 65 s: Node closes them after 5 s by
 *   default, and a client reusing one at that moment gets ECONNRESET. Longer
 *   than common client and load-balancer idle timeouts (60 s), so the client
 *   is the side that closes.
 * - Requests Node's own parser refuses before the app sees them (headers over
 *   its limit, a malformed request line, a header or request timeout) are
 *   answered with the API's `{error}` body instead of Node's empty one, and
 *   the connection is closed.
 */
export const make = (): Server => {
  const server = createServer()
  server.keepAliveTimeout = 65_000
  server.headersTimeout = 66_000
  server.on("clientError", answerClientError)
  return server
}

const statusOf = (code: string | undefined): readonly [number, string] => {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return [431, "request headers too large"]
    case "ERR_HTTP_REQUEST_TIMEOUT":
    case "ERR_HTTP_HEADERS_TIMEOUT":
      return [408, "request timed out"]
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return [413, "request body chunk extensions too large"]
    default:
      return [400, "malformed HTTP request"]
  }
}

const reasons: Record<number, string> = { 400: "Bad Request", 408: "Request Timeout", 413: "Payload Too Large", 431: "Request Header Fields Too Large" }

/** Node's `clientError`: the socket has no request object; write a complete JSON answer and close. */
export const answerClientError = (error: Error & { code?: string }, socket: Duplex) => {
  // A peer that went away needs no answer.
  if (error.code === "ECONNRESET" || !socket.writable) {
    socket.destroy()
    return
  }
  const [status, message] = statusOf(error.code)
  const body = JSON.stringify({ error: message })
  // The answer to a HEAD has no body (a client reads the body's bytes as the next answer and
  // gives up on the connection): the same head as for a GET, nothing after it.
  socket.end(
    `HTTP/1.1 ${status} ${reasons[status]}\r\n` +
      "content-type: application/json\r\n" +
      `content-length: ${Buffer.byteLength(body)}\r\n` +
      "connection: close\r\n\r\n" +
      (isHead(error) ? "" : body)
  )
}

/**
 * Whether the refused request is a HEAD. The socket has no request object yet;
 * the bytes being parsed (`rawPacket`) start with its request line when it
 * came in one piece with its headers, as a client writes a request.
 */
const isHead = (error: Error & { rawPacket?: unknown }): boolean =>
  Buffer.isBuffer(error.rawPacket) && error.rawPacket.subarray(0, 5).toString("latin1") === "HEAD "
