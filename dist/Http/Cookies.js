import { HttpApp, HttpServerResponse } from "@effect/platform";
import * as Effect from "effect/Effect";
/**
 * Adds a `Set-Cookie` header to the response of the current request. Handlers
 * return typed values, so the cookie is attached as the response goes out.
 */
export const setCookie = (value) => HttpApp.appendPreResponseHandler((_request, response) => Effect.succeed(HttpServerResponse.setHeader(response, "set-cookie", value)));
//# sourceMappingURL=Cookies.js.map