import { HttpApiMiddleware, HttpApiSecurity } from "@effect/platform";
import * as Context from "effect/Context";
import * as Schema from "effect/Schema";
import { Forbidden, Unauthorized } from "../Domain/Errors.js";
import type { Role } from "../Domain/Schemas.js";
/**
 * Who is calling. Contract side: no server code here, so the typed client and
 * the worker SDK can import the middleware tags.
 */
export type Actor = {
    readonly _tag: "User";
    readonly userId: string;
    readonly sessionHash: string;
} | {
    readonly _tag: "ApiKey";
    readonly keyId: string;
    readonly environmentId: string;
    readonly role: Role;
}
/**
 * A trigger's MCP token (`POST /api/v1/mcp`): an operator of the trigger's
 * environment whose tools reach that one trigger and its runs only.
 */
 | {
    readonly _tag: "Mcp";
    readonly triggerId: string;
    readonly environmentId: string;
    readonly role: Role;
};
declare const CurrentActor_base: Context.TagClass<CurrentActor, "Auth/CurrentActor", Actor>;
export declare class CurrentActor extends CurrentActor_base {
}
export interface WorkerIdentity {
    readonly workerId: string;
    readonly environmentId: string;
    readonly workspaceId: string;
}
declare const CurrentWorker_base: Context.TagClass<CurrentWorker, "Auth/CurrentWorker", WorkerIdentity>;
export declare class CurrentWorker extends CurrentWorker_base {
}
declare const Authentication_base: HttpApiMiddleware.TagClass.BaseSecurity<Authentication, "Auth/Authentication", {
    readonly failure: Schema.Union<[typeof Unauthorized, typeof Forbidden]>;
    readonly provides: typeof CurrentActor;
    readonly security: {
        readonly bearer: HttpApiSecurity.Bearer;
        readonly cookie: HttpApiSecurity.ApiKey;
    };
}, {
    readonly bearer: (_: import("effect/Redacted").Redacted<string>) => import("effect/Effect").Effect<Actor, Unauthorized | Forbidden, import("@effect/platform/HttpRouter").HttpRouter.Provided>;
    readonly cookie: (_: import("effect/Redacted").Redacted<string>) => import("effect/Effect").Effect<Actor, Unauthorized | Forbidden, import("@effect/platform/HttpRouter").HttpRouter.Provided>;
}, {
    readonly bearer: HttpApiSecurity.Bearer;
    readonly cookie: HttpApiSecurity.ApiKey;
}>;
/** Environment-scoped routes: a `pwk_` bearer key, or the session cookie. */
export declare class Authentication extends Authentication_base {
}
declare const UserAuthentication_base: HttpApiMiddleware.TagClass.BaseSecurity<UserAuthentication, "Auth/UserAuthentication", {
    readonly failure: Schema.Union<[typeof Unauthorized, typeof Forbidden]>;
    readonly provides: typeof CurrentActor;
    readonly security: {
        readonly cookie: HttpApiSecurity.ApiKey;
    };
}, {
    readonly cookie: (_: import("effect/Redacted").Redacted<string>) => import("effect/Effect").Effect<Actor, Unauthorized | Forbidden, import("@effect/platform/HttpRouter").HttpRouter.Provided>;
}, {
    readonly cookie: HttpApiSecurity.ApiKey;
}>;
/** Account routes (workspaces, auth/me, lookup): the session cookie only. */
export declare class UserAuthentication extends UserAuthentication_base {
}
declare const WorkerAuthentication_base: HttpApiMiddleware.TagClass.BaseSecurity<WorkerAuthentication, "Auth/WorkerAuthentication", {
    readonly failure: typeof Unauthorized;
    readonly provides: typeof CurrentWorker;
    readonly security: {
        readonly bearer: HttpApiSecurity.Bearer;
    };
}, {
    readonly bearer: (_: import("effect/Redacted").Redacted<string>) => import("effect/Effect").Effect<WorkerIdentity, Unauthorized, import("@effect/platform/HttpRouter").HttpRouter.Provided>;
}, {
    readonly bearer: HttpApiSecurity.Bearer;
}>;
/** Worker protocol routes: a `wkt_` bearer token. */
export declare class WorkerAuthentication extends WorkerAuthentication_base {
}
export {};
//# sourceMappingURL=Security.d.ts.map