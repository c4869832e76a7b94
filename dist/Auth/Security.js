import { HttpApiMiddleware, HttpApiSecurity } from "@effect/platform";
import * as Context from "effect/Context";
import * as Schema from "effect/Schema";
import { Forbidden, Unauthorized } from "../Domain/Errors.js";
export class CurrentActor extends Context.Tag("Auth/CurrentActor")() {
}
export class CurrentWorker extends Context.Tag("Auth/CurrentWorker")() {
}
const cookie = HttpApiSecurity.apiKey({ in: "cookie", key: "auth_token" });
/** Environment-scoped routes: a `pwk_` bearer key, or the session cookie. */
export class Authentication extends HttpApiMiddleware.Tag()("Auth/Authentication", {
    failure: Schema.Union(Unauthorized, Forbidden),
    provides: CurrentActor,
    security: { bearer: HttpApiSecurity.bearer, cookie }
}) {
}
/** Account routes (workspaces, auth/me, lookup): the session cookie only. */
export class UserAuthentication extends HttpApiMiddleware.Tag()("Auth/UserAuthentication", {
    failure: Schema.Union(Unauthorized, Forbidden),
    provides: CurrentActor,
    security: { cookie }
}) {
}
/** Worker protocol routes: a `wkt_` bearer token. */
export class WorkerAuthentication extends HttpApiMiddleware.Tag()("Auth/WorkerAuthentication", {
    failure: Unauthorized,
    provides: CurrentWorker,
    security: { bearer: HttpApiSecurity.bearer }
}) {
}
//# sourceMappingURL=Security.js.map