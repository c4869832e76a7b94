import * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import { AppConfig } from "../Config/AppConfig.js";
import { Worker } from "./Api.js";
export interface WorkerRow {
    readonly id: string;
    readonly environment_id: string;
    readonly workspace_id: string;
    readonly label: string;
    readonly last_seen_at: Date;
    readonly created_at: Date;
    /** Computed in SQL against the database clock, so every instance agrees. */
    readonly online: boolean;
}
export declare const toWorker: (row: WorkerRow) => Worker;
export interface ListOptions {
    readonly status?: "online" | "offline" | undefined;
    readonly after?: string | undefined;
    readonly limit: number;
}
declare const WorkersRepo_base: Effect.Service.Class<WorkersRepo, "Workers/Repo", {
    readonly effect: Effect.Effect<{
        readonly consumeRegistrationToken: (tokenHash: string) => Effect.Effect<Option.Option<{
            id: string;
            environment_id: string;
            workspace_id: string;
        }>>;
        readonly insert: (worker: {
            readonly id: string;
            readonly environmentId: string;
            readonly workspaceId: string;
            readonly label: string;
            readonly tokenHash: string;
            readonly registrationKeyId: string;
        }) => Effect.Effect<WorkerRow>;
        readonly findInWorkspace: (workspaceId: string, workerId: string) => Effect.Effect<Option.Option<WorkerRow>>;
        readonly setLabel: (workerId: string, label: string) => Effect.Effect<Option.Option<WorkerRow>>;
        readonly listEnvironment: (environmentId: string, options: ListOptions) => Effect.Effect<ReadonlyArray<WorkerRow>>;
        readonly listWorkspaceForUser: (workspaceId: string, userId: string, options: ListOptions) => Effect.Effect<ReadonlyArray<WorkerRow>>;
        readonly userSeesWorkspace: (workspaceId: string, userId: string) => Effect.Effect<boolean>;
        readonly workspaceOfEnvironment: (environmentId: string) => Effect.Effect<Option.Option<string>>;
    }, never, SqlClient.SqlClient | AppConfig>;
}>;
/** Data access for the worker registry; the `wkt_` token is stored only as its SHA-256. */
export declare class WorkersRepo extends WorkersRepo_base {
}
export {};
//# sourceMappingURL=WorkersRepo.d.ts.map