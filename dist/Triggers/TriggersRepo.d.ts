import * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
import type { CurrentActor } from "../Auth/Security.js";
import type { Forbidden } from "../Domain/Errors.js";
import { NotFound } from "../Domain/Errors.js";
import type { Role } from "../Domain/Schemas.js";
import { Policy } from "../Tenancy/Policy.js";
/** A row of `triggers`, as every query here selects it. */
export interface TriggerRow {
    readonly id: string;
    readonly environment_id: string;
    readonly name: string;
    readonly description: string | null;
    readonly worker_id: string | null;
    readonly input: unknown;
    readonly timeout_seconds: number;
    readonly heartbeat_timeout_seconds: number;
    readonly max_retries: number;
    readonly webhook_url: string | null;
    /** AES-256-GCM ciphertext (SecretBox); never leaves the server. */
    readonly webhook_secret_enc: string | null;
    readonly created_at: Date;
    readonly updated_at: Date;
}
/** Path ids arrive as plain strings; a malformed one names nothing (404), it must not reach a uuid column. */
export declare const isUuid: (value: string) => boolean;
export declare const activeRunStatuses: readonly ["queued", "assigned", "claimed", "running"];
export interface TriggerChanges {
    readonly name: string;
    readonly description: string | null;
    readonly worker_id: string | null;
    readonly input: unknown;
    readonly timeout_seconds: number;
    readonly heartbeat_timeout_seconds: number;
    readonly max_retries: number;
    readonly webhook_url: string | null;
    readonly webhook_secret_enc: string | null;
}
declare const TriggersRepo_base: Effect.Service.Class<TriggersRepo, "Triggers/Repo", {
    readonly effect: Effect.Effect<{
        readonly findActive: (id: string) => Effect.Effect<Option.Option<TriggerRow>>;
        readonly findVisible: (id: string, min: Role) => Effect.Effect<TriggerRow, NotFound | Forbidden, CurrentActor>;
        readonly insert: (id: string, environmentId: string, t: TriggerChanges) => Effect.Effect<TriggerRow>;
        readonly lockActive: (id: string) => Effect.Effect<Option.Option<TriggerRow>>;
        readonly update: (id: string, t: TriggerChanges) => Effect.Effect<Option.Option<TriggerRow>>;
        readonly softDelete: (id: string) => Effect.Effect<boolean>;
        readonly setMcpTokenHash: (id: string, hash: string) => Effect.Effect<boolean>;
        readonly list: (environmentId: string, options: {
            readonly after?: string | undefined;
            readonly workerId?: string | undefined;
            readonly limit: number;
        }) => Effect.Effect<ReadonlyArray<TriggerRow>>;
    }, never, SqlClient.SqlClient | Policy>;
    readonly dependencies: readonly [import("effect/Layer").Layer<Policy, never, SqlClient.SqlClient>];
}>;
/**
 * Data access for triggers. A soft-deleted trigger is invisible to every
 * query here: other features (runs, webhook deliveries) use `findVisible` to
 * answer 404 for it exactly as for a trigger that never existed.
 */
export declare class TriggersRepo extends TriggersRepo_base {
}
export {};
//# sourceMappingURL=TriggersRepo.d.ts.map