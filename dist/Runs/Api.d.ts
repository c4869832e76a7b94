import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform";
import * as Schema from "effect/Schema";
import { Authentication } from "../Auth/Security.js";
import { Forbidden, NotFound } from "../Domain/Errors.js";
/** `POST /triggers/{id}/run` body; the body itself is optional. */
export declare const RunRequest: Schema.Struct<{
    input: Schema.optional<Schema.SchemaClass<unknown, unknown, never>>;
}>;
export declare const RunListParams: Schema.Struct<{
    status: Schema.optional<Schema.Literal<["queued", "assigned", "claimed", "running", "succeeded", "failed", "timed_out"]>>;
    from: Schema.optional<Schema.transform<Schema.filter<typeof Schema.String>, typeof Schema.Date>>;
    to: Schema.optional<Schema.transform<Schema.filter<typeof Schema.String>, typeof Schema.Date>>;
    workerId: Schema.optional<Schema.refine<string, typeof Schema.String>>;
    cursor: Schema.optional<typeof Schema.String>;
    limit: Schema.optional<Schema.refine<number, Schema.filter<typeof Schema.NumberFromString>>>;
}>;
/** A repeat with the same key answers the first run (header here, `idempotencyKey` for MCP's run_trigger). */
export declare const IdempotencyKey: Schema.refine<string, Schema.filter<typeof Schema.String>>;
export declare const IdempotencyHeaders: Schema.Struct<{
    "idempotency-key": Schema.optional<Schema.refine<string, Schema.filter<typeof Schema.String>>>;
}>;
declare const RunsApi_base: HttpApiGroup.HttpApiGroup<"runs", HttpApiEndpoint.HttpApiEndpoint<"requestRun", "POST", {
    readonly id: string;
}, never, {
    readonly input?: unknown;
}, {
    readonly "idempotency-key"?: string | undefined;
}, {
    readonly status: "queued" | "assigned" | "claimed" | "running" | "succeeded" | "failed" | "timed_out";
    readonly id: string;
    readonly createdAt: Date;
    readonly environmentId: string;
    readonly triggerId: string;
    readonly attempt: number;
    readonly retryOfRunId: string | null;
    readonly workerId: string | null;
    readonly input: unknown;
    readonly durationMs: number | null;
    readonly shortMessage: string | null;
    readonly errorMessage: string | null;
    readonly costUsd: string | null;
    readonly faultClass: "infra" | "client" | "none" | null;
    readonly assignedAt: Date | null;
    readonly claimedAt: Date | null;
    readonly startedAt: Date | null;
    readonly lastHeartbeatAt: Date | null;
    readonly endedAt: Date | null;
}, Forbidden | NotFound, never, never> | HttpApiEndpoint.HttpApiEndpoint<"listTriggerRuns", "GET", {
    readonly id: string;
}, {
    readonly status?: "queued" | "assigned" | "claimed" | "running" | "succeeded" | "failed" | "timed_out" | undefined;
    readonly limit?: number | undefined;
    readonly from?: Date | undefined;
    readonly cursor?: string | undefined;
    readonly to?: Date | undefined;
    readonly workerId?: string | undefined;
}, never, never, {
    readonly items: readonly {
        readonly status: "queued" | "assigned" | "claimed" | "running" | "succeeded" | "failed" | "timed_out";
        readonly id: string;
        readonly createdAt: Date;
        readonly environmentId: string;
        readonly triggerId: string;
        readonly attempt: number;
        readonly retryOfRunId: string | null;
        readonly workerId: string | null;
        readonly input: unknown;
        readonly durationMs: number | null;
        readonly shortMessage: string | null;
        readonly errorMessage: string | null;
        readonly costUsd: string | null;
        readonly faultClass: "infra" | "client" | "none" | null;
        readonly assignedAt: Date | null;
        readonly claimedAt: Date | null;
        readonly startedAt: Date | null;
        readonly lastHeartbeatAt: Date | null;
        readonly endedAt: Date | null;
    }[];
    readonly nextCursor: string | null;
}, Forbidden | NotFound, never, never> | HttpApiEndpoint.HttpApiEndpoint<"listEnvironmentRuns", "GET", {
    readonly envId: string;
}, {
    readonly status?: "queued" | "assigned" | "claimed" | "running" | "succeeded" | "failed" | "timed_out" | undefined;
    readonly limit?: number | undefined;
    readonly from?: Date | undefined;
    readonly cursor?: string | undefined;
    readonly to?: Date | undefined;
    readonly workerId?: string | undefined;
}, never, never, {
    readonly items: readonly {
        readonly status: "queued" | "assigned" | "claimed" | "running" | "succeeded" | "failed" | "timed_out";
        readonly id: string;
        readonly createdAt: Date;
        readonly environmentId: string;
        readonly triggerId: string;
        readonly attempt: number;
        readonly retryOfRunId: string | null;
        readonly workerId: string | null;
        readonly input: unknown;
        readonly durationMs: number | null;
        readonly shortMessage: string | null;
        readonly errorMessage: string | null;
        readonly costUsd: string | null;
        readonly faultClass: "infra" | "client" | "none" | null;
        readonly assignedAt: Date | null;
        readonly claimedAt: Date | null;
        readonly startedAt: Date | null;
        readonly lastHeartbeatAt: Date | null;
        readonly endedAt: Date | null;
    }[];
    readonly nextCursor: string | null;
}, Forbidden | NotFound, never, never> | HttpApiEndpoint.HttpApiEndpoint<"getRun", "GET", {
    readonly id: string;
}, never, never, never, {
    readonly status: "queued" | "assigned" | "claimed" | "running" | "succeeded" | "failed" | "timed_out";
    readonly id: string;
    readonly createdAt: Date;
    readonly environmentId: string;
    readonly triggerId: string;
    readonly attempt: number;
    readonly retryOfRunId: string | null;
    readonly workerId: string | null;
    readonly input: unknown;
    readonly durationMs: number | null;
    readonly shortMessage: string | null;
    readonly errorMessage: string | null;
    readonly costUsd: string | null;
    readonly faultClass: "infra" | "client" | "none" | null;
    readonly assignedAt: Date | null;
    readonly claimedAt: Date | null;
    readonly startedAt: Date | null;
    readonly lastHeartbeatAt: Date | null;
    readonly endedAt: Date | null;
    readonly triggerName: string;
    readonly retriedByRunId: string | null;
    readonly delivery: import("../Webhooks/Api.js").WebhookDelivery | null;
    readonly cancelRequestedAt: Date | null;
}, Forbidden | NotFound, never, never> | HttpApiEndpoint.HttpApiEndpoint<"runEvents", "GET", {
    readonly id: string;
}, never, never, never, {
    readonly items: readonly {
        readonly at: Date;
        readonly status: "queued" | "assigned" | "claimed" | "running" | "succeeded" | "failed" | "timed_out";
        readonly workerId: string | null;
        readonly reason: "assigned" | "claimed" | "requested" | "started" | "completed" | "claim_timeout" | "heartbeat_timeout" | "execution_timeout" | "cancelled" | "worker_revoked" | "released";
    }[];
}, Forbidden | NotFound, never, never>, import("../Domain/Errors.js").Unauthorized | Forbidden, Authentication, false>;
export declare class RunsApi extends RunsApi_base {
}
export {};
//# sourceMappingURL=Api.d.ts.map