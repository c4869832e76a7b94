import * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
import { CurrentActor, type Actor } from "../Auth/Security.js";
import { Forbidden, NotFound } from "../Domain/Errors.js";
import { type Role } from "../Domain/Schemas.js";
/** Path ids are plain strings: a malformed one names nothing, so it is a 404, not a SQL cast error. */
export declare const isUuid: (value: string) => boolean;
declare const Policy_base: Effect.Service.Class<Policy, "Tenancy/Policy", {
    readonly effect: Effect.Effect<{
        readonly roleIn: (actor: Actor, environmentId: string) => Effect.Effect<Role | undefined>;
        readonly requireRole: (environmentId: string, min: Role, what?: string) => Effect.Effect<Role, NotFound | Forbidden, CurrentActor>;
    }, never, SqlClient.SqlClient>;
}>;
/**
 * Access to an environment and everything in it is by membership of that
 * environment alone (or by an API key of that environment). Not visible → 404,
 * visible but below the role → 403, so existence never leaks.
 */
export declare class Policy extends Policy_base {
}
export {};
//# sourceMappingURL=Policy.d.ts.map