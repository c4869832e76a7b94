import * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
import { AuditLog } from "../Audit/AuditLog.js";
import { CurrentActor } from "../Auth/Security.js";
import { SecretBox } from "../Crypto/SecretBox.js";
import { type Forbidden, NotFound, ValidationError } from "../Domain/Errors.js";
import { Policy } from "../Tenancy/Policy.js";
import { UrlGuard } from "../Webhooks/UrlGuard.js";
import { Trigger } from "./Api.js";
import { type TriggerRow, TriggersRepo } from "./TriggersRepo.js";
export declare const toTrigger: (row: TriggerRow) => Trigger;
export declare const defaults: {
    readonly timeoutSeconds: 3600;
    readonly heartbeatTimeoutSeconds: 30;
    readonly maxRetries: 0;
};
declare const Triggers_base: Effect.Service.Class<Triggers, "Triggers/Triggers", {
    readonly effect: Effect.Effect<{
        readonly create: (environmentId: string, input: {
            readonly description?: string | null | undefined;
            readonly name: string;
            readonly workerId?: string | null | undefined;
            readonly input?: unknown;
            readonly timeoutSeconds?: number | undefined;
            readonly heartbeatTimeoutSeconds?: number | undefined;
            readonly maxRetries?: number | undefined;
            readonly webhookUrl?: string | null | undefined;
            readonly webhookSecret?: string | null | undefined;
        }) => Effect.Effect<Trigger, ValidationError | Forbidden | NotFound, CurrentActor>;
        readonly get: (id: string) => Effect.Effect<Trigger, NotFound | Forbidden, CurrentActor>;
        readonly list: (environmentId: string, params: {
            readonly cursor?: string | undefined;
            readonly limit?: number | undefined;
            readonly workerId?: string | undefined;
        }) => Effect.Effect<{
            items: Trigger[];
            nextCursor: string | null;
        }, ValidationError | Forbidden | NotFound, CurrentActor>;
        readonly update: (id: string, patch: {
            readonly description?: string | null | undefined;
            readonly name?: string | undefined;
            readonly workerId?: string | null | undefined;
            readonly input?: unknown;
            readonly timeoutSeconds?: number | undefined;
            readonly heartbeatTimeoutSeconds?: number | undefined;
            readonly maxRetries?: number | undefined;
            readonly webhookUrl?: string | null | undefined;
            readonly webhookSecret?: string | null | undefined;
        }) => Effect.Effect<Trigger, ValidationError | Forbidden | NotFound, CurrentActor>;
        readonly remove: (id: string) => Effect.Effect<void, Forbidden | NotFound, CurrentActor>;
        readonly rotateMcpToken: (id: string) => Effect.Effect<{
            mcpToken: string;
        }, Forbidden | NotFound, CurrentActor>;
    }, never, SqlClient.SqlClient | AuditLog | Policy | SecretBox | UrlGuard | TriggersRepo>;
    readonly dependencies: readonly [import("effect/Layer").Layer<TriggersRepo, never, SqlClient.SqlClient>, import("effect/Layer").Layer<Policy, never, SqlClient.SqlClient>, import("effect/Layer").Layer<AuditLog, never, SqlClient.SqlClient>, import("effect/Layer").Layer<SecretBox, never, import("../Config/AppConfig.js").AppConfig>, import("effect/Layer").Layer<UrlGuard, never, import("../Config/AppConfig.js").AppConfig>];
}>;
/**
 * Trigger use cases: each mutation and its audit record commit together. The
 * webhook secret is sealed with SecretBox before it reaches SQL and is never
 * decrypted here; audit metadata names changed fields, never their values.
 */
export declare class Triggers extends Triggers_base {
}
export {};
//# sourceMappingURL=Triggers.d.ts.map