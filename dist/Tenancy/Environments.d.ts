import * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
import type { Actor } from "../Auth/Security.js";
import { ApiKeys } from "../ApiKeys/ApiKeys.js";
import { AuditLog } from "../Audit/AuditLog.js";
import { Conflict, NotFound } from "../Domain/Errors.js";
import type { Environment } from "./Api.js";
declare const Environments_base: Effect.Service.Class<Environments, "Tenancy/Environments", {
    readonly effect: Effect.Effect<{
        readonly rename: (actor: Actor, id: string, name: string) => Effect.Effect<Environment, NotFound>;
        readonly remove: (id: string) => Effect.Effect<void, NotFound | Conflict>;
    }, never, SqlClient.SqlClient | AuditLog | ApiKeys>;
    readonly dependencies: readonly [import("effect/Layer").Layer<AuditLog, never, SqlClient.SqlClient>];
}>;
/** Renaming and deleting environments; callers check the role first (see Policy). */
export declare class Environments extends Environments_base {
}
export {};
//# sourceMappingURL=Environments.d.ts.map