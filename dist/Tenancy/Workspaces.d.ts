import * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
import { Forbidden, NotFound, type ValidationError } from "../Domain/Errors.js";
import type { Environment, Workspace } from "./Api.js";
export interface EnvironmentRow {
    readonly id: string;
    readonly workspace_id: string;
    readonly name: string;
    readonly created_at: Date;
    readonly updated_at: Date;
}
export declare const toEnvironment: (row: EnvironmentRow) => Environment;
type PageOf<A> = {
    items: ReadonlyArray<A>;
    nextCursor: string | null;
};
declare const Workspaces_base: Effect.Service.Class<Workspaces, "Tenancy/Workspaces", {
    readonly effect: Effect.Effect<{
        readonly create: (userId: string, name: string) => Effect.Effect<Workspace>;
        readonly list: (userId: string, cursor: string | undefined, limit: number) => Effect.Effect<PageOf<Workspace>, ValidationError>;
        readonly requireVisible: (userId: string, workspaceId: string) => Effect.Effect<{
            ownerId: string;
        }, NotFound>;
        readonly createEnvironment: (userId: string, workspaceId: string, name: string) => Effect.Effect<Environment, NotFound | Forbidden>;
        readonly listEnvironments: (userId: string, workspaceId: string, cursor: string | undefined, limit: number) => Effect.Effect<PageOf<Environment>, NotFound | ValidationError>;
    }, never, SqlClient.SqlClient>;
}>;
/**
 * Workspaces and the environments in them. A workspace is visible to its owner
 * and to anyone with a membership in one of its environments; everyone else
 * gets 404, so existence never leaks.
 */
export declare class Workspaces extends Workspaces_base {
}
export {};
//# sourceMappingURL=Workspaces.d.ts.map