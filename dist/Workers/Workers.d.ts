import * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
import { AuditLog } from "../Audit/AuditLog.js";
import { CurrentActor } from "../Auth/Security.js";
import { NotFound, Unauthorized } from "../Domain/Errors.js";
import { Policy } from "../Tenancy/Policy.js";
import { WorkersRepo } from "./WorkersRepo.js";
interface ListParams {
    readonly status?: "online" | "offline" | undefined;
    readonly cursor?: string | undefined;
    readonly limit?: number | undefined;
}
declare const Workers_base: Effect.Service.Class<Workers, "Workers/Workers", {
    readonly effect: Effect.Effect<{
        readonly register: (registrationToken: string, label: string | undefined) => Effect.Effect<{
            worker: import("./Api.js").Worker;
            token: string;
        }, Unauthorized, never>;
        readonly listEnvironment: (environmentId: string, params: ListParams) => Effect.Effect<{
            items: import("./Api.js").Worker[];
            nextCursor: string | null;
        }, import("../Domain/Errors.js").ValidationError | import("../Domain/Errors.js").Forbidden | NotFound, CurrentActor>;
        readonly listWorkspace: (workspaceId: string, params: ListParams) => Effect.Effect<{
            items: import("./Api.js").Worker[];
            nextCursor: string | null;
        }, import("../Domain/Errors.js").ValidationError | NotFound, CurrentActor>;
        readonly updateLabel: (workspaceId: string, workerId: string, label: string) => Effect.Effect<import("./Api.js").Worker, import("../Domain/Errors.js").Forbidden | NotFound, CurrentActor>;
    }, never, SqlClient.SqlClient | AuditLog | Policy | WorkersRepo>;
    readonly dependencies: readonly [import("effect/Layer").Layer<WorkersRepo, never, SqlClient.SqlClient | import("../Config/AppConfig.js").AppConfig>, import("effect/Layer").Layer<Policy, never, SqlClient.SqlClient>, import("effect/Layer").Layer<AuditLog, never, SqlClient.SqlClient>];
}>;
/** The worker registry: registration, listings and labels. */
export declare class Workers extends Workers_base {
}
export {};
//# sourceMappingURL=Workers.d.ts.map