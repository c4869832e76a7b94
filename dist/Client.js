import { HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform";
import * as Redacted from "effect/Redacted";
import { Api } from "./Api.js";
/**
 * A client for the service at `baseUrl` (its origin, e.g. `http://localhost:3000`;
 * the `/api/v1` prefix is part of the API definition). Needs an `HttpClient`:
 * provide `FetchHttpClient.layer` or `NodeHttpClient.layerUndici`.
 */
export const makeClient = (baseUrl, options = {}) => HttpApiClient.make(Api, {
    baseUrl,
    transformClient: (client) => {
        const bearer = options.bearer === undefined
            ? undefined
            : Redacted.isRedacted(options.bearer)
                ? Redacted.value(options.bearer)
                : options.bearer;
        const authenticated = client.pipe(HttpClient.mapRequest((request) => {
            let next = request;
            if (bearer !== undefined)
                next = HttpClientRequest.bearerToken(next, bearer);
            if (options.cookie !== undefined) {
                next = HttpClientRequest.setHeader(next, "cookie", options.cookie);
                if (options.origin !== undefined)
                    next = HttpClientRequest.setHeader(next, "origin", options.origin);
            }
            return next;
        }));
        return options.transformClient === undefined ? authenticated : options.transformClient(authenticated);
    }
});
//# sourceMappingURL=Client.js.map