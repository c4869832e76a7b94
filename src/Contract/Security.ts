import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as HttpApiSecurity from "@effect/platform/HttpApiSecurity"
import * as Context from "effect/Context"
import * as Schema from "effect/Schema"
import { Forbidden, Unauthorized } from "./Domain/ApiErrors.js"
import type { Role } from "./Domain/Schemas.js"

/**
 * Who is calling. Contract side: no server code here, so the typed client and
 * the worker SDK can import the middleware tags.
 */
export type Actor =
  | { readonly _tag: "User"; readonly userId: string; readonly sessionHash: string }
  | { readonly _tag: "ApiKey"; readonly keyId: string; readonly environmentId: string; readonly role: Role }
  /**
   * A trigger's MCP token (`POST /api/v1/mcp`): an operator of the trigger's
   * environment whose tools reach that one trigger and its runs only.
   */
  | { readonly _tag: "Mcp"; readonly triggerId: string; readonly environmentId: string; readonly role: Role }

export class CurrentActor extends Context.Tag("Auth/CurrentActor")<CurrentActor, Actor>() {}

export interface WorkerIdentity {
  readonly workerId: string
  readonly environmentId: string
  readonly workspaceId: string
}
export class CurrentWorker extends Context.Tag("Auth/CurrentWorker")<CurrentWorker, WorkerIdentity>() {}

const cookie = HttpApiSecurity.apiKey({ in: "cookie", key: "auth_token" })

/** Environment-scoped routes: a `pwk_` bearer key, or the session cookie. */
export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("Auth/Authentication", {
  failure: Schema.Union(Unauthorized.wire, Forbidden.wire),
  provides: CurrentActor,
  security: { bearer: HttpApiSecurity.bearer, cookie }
}) {}

/** Account routes (workspaces, auth/me, lookup): the session cookie only. */
export class UserAuthentication extends HttpApiMiddleware.Tag<UserAuthentication>()("Auth/UserAuthentication", {
  failure: Schema.Union(Unauthorized.wire, Forbidden.wire),
  provides: CurrentActor,
  security: { cookie }
}) {}

/** Worker protocol routes: a `wkt_` bearer token. */
export class WorkerAuthentication extends HttpApiMiddleware.Tag<WorkerAuthentication>()("Auth/WorkerAuthentication", {
  failure: Unauthorized.wire,
  provides: CurrentWorker,
  security: { bearer: HttpApiSecurity.bearer }
}) {}
