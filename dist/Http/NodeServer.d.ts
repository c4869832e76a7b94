import { type Server } from "node:http";
import type { Duplex } from "node:stream";
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
export declare const make: () => Server;
/** Node's `clientError`: the socket has no request object; write a complete JSON answer and close. */
export declare const answerClientError: (error: Error & {
    code?: string;
}, socket: Duplex) => void;
//# sourceMappingURL=NodeServer.d.ts.map