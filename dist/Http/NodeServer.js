import { createServer } from "node:http";
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
export const make = () => {
    const server = createServer();
    server.keepAliveTimeout = 65_000;
    server.headersTimeout = 66_000;
    server.on("clientError", answerClientError);
    return server;
};
const statusOf = (code) => {
    switch (code) {
        case "HPE_HEADER_OVERFLOW":
            return [431, "request headers too large"];
        case "ERR_HTTP_REQUEST_TIMEOUT":
        case "ERR_HTTP_HEADERS_TIMEOUT":
            return [408, "request timed out"];
        case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
            return [413, "request body chunk extensions too large"];
        default:
            return [400, "malformed HTTP request"];
    }
};
const reasons = { 400: "Bad Request", 408: "Request Timeout", 413: "Payload Too Large", 431: "Request Header Fields Too Large" };
/** Node's `clientError`: the socket has no request object; write a complete JSON answer and close. */
export const answerClientError = (error, socket) => {
    // A peer that went away needs no answer.
    if (error.code === "ECONNRESET" || !socket.writable) {
        socket.destroy();
        return;
    }
    const [status, message] = statusOf(error.code);
    const body = JSON.stringify({ error: message });
    socket.end(`HTTP/1.1 ${status} ${reasons[status]}\r\n` +
        "content-type: application/json\r\n" +
        `content-length: ${Buffer.byteLength(body)}\r\n` +
        "connection: close\r\n\r\n" +
        body);
};
//# sourceMappingURL=NodeServer.js.map