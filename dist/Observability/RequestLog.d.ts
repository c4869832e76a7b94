import { HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform";
import * as Effect from "effect/Effect";
export declare const requestIdHeader = "x-request-id";
/** The request id to use: the caller's `X-Request-Id` when acceptable, else a new UUID. */
export declare const requestIdOf: (header: string | undefined) => string;
/**
 * Per request: the request id (honoured or generated, echoed in the answer's
 * `X-Request-Id`, annotating every log line written while it is handled),
 * one Info line when it is answered (method, route template, status,
 * duration, request id; never the raw path or query, which can carry
 * tokens, nor any header) and the HTTP metrics. The status is read from the
 * response as it is sent, so error answers made by the server count too.
 */
export declare const middleware: (routeOf?: (url: string) => string) => <E, R>(app: HttpApp.Default<E, R>) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, HttpServerRequest.HttpServerRequest | R>;
//# sourceMappingURL=RequestLog.d.ts.map