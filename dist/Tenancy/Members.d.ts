import * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
import type { Actor } from "../Auth/Security.js";
import { AuditLog } from "../Audit/AuditLog.js";
import { Conflict, Forbidden, NotFound, ValidationError } from "../Domain/Errors.js";
import type { Role } from "../Domain/Schemas.js";
import type { Member } from "./Api.js";
declare const Members_base: Effect.Service.Class<Members, "Tenancy/Members", {
    readonly effect: Effect.Effect<{
        readonly list: (environmentId: string, cursor: string | undefined, limit: number) => Effect.Effect<{
            items: ReadonlyArray<Member>;
            nextCursor: string | null;
        }, ValidationError>;
        readonly add: (actor: Actor, environmentId: string, userId: string, role: Role) => Effect.Effect<Member, NotFound | Forbidden | Conflict>;
        readonly changeRole: (actor: Actor, environmentId: string, userId: string, role: Role) => Effect.Effect<Member, NotFound | Forbidden | Conflict>;
        readonly remove: (actor: Actor, environmentId: string, userId: string) => Effect.Effect<void, NotFound | Forbidden | Conflict>;
    }, never, SqlClient.SqlClient | AuditLog>;
    readonly dependencies: readonly [import("effect/Layer").Layer<AuditLog, never, SqlClient.SqlClient>];
}>;
/**
 * Memberships of an environment. Every change locks the environment's member
 * rows first, so two concurrent demotions cannot both pass the last-owner check.
 */
export declare class Members extends Members_base {
}
export {};
//# sourceMappingURL=Members.d.ts.map