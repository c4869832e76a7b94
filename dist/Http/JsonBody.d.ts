import { HttpServerRequest, HttpServerResponse } from "@effect/platform";
import * as Effect from "effect/Effect";
/**
 * The API speaks JSON only. Before any route decodes a body:
 *
 * - a body declared as anything but `application/json` (charset allowed) is
 *   415, so multipart and form bodies never reach a parser (the platform
 *   would parse multipart and url-encoded bodies, and read `[1,2,3]` sent as
 *   a form as an empty object);
 * - a body without a content type is read as JSON;
 * - JSON nested deeper than `maxDepth` is 400, found by a linear scan that
 *   never recurses: a decoder or error formatter walking 100,000 levels of
 *   user input would exhaust the stack.
 *
 * Paths outside `/api/` (the dashboard's files) have no bodies and pass.
 */
export declare const maxDepth = 64;
/** `application/json`, with or without parameters such as `charset=utf-8`. */
export declare const isJson: (contentType: string | undefined) => boolean;
/** True when the text nests arrays/objects deeper than `limit` (strings and escapes skipped). */
export declare const nestsDeeperThan: (text: string, limit: number) => boolean;
export declare const middleware: <E, R>(app: import("@effect/platform/HttpApp").Default<E, R>) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, HttpServerRequest.HttpServerRequest | R>;
//# sourceMappingURL=JsonBody.d.ts.map