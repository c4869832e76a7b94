import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform";
import * as Schema from "effect/Schema";
import { WorkerAuthentication } from "../Auth/Security.js";
import { Conflict, NotFound } from "../Domain/Errors.js";
import { Worker } from "../Workers/Api.js";
/** What a worker needs to know about the trigger of a run it is handed. */
export declare const TriggerSummary: Schema.Struct<{
    id: typeof Schema.UUID;
    name: typeof Schema.String;
    input: Schema.SchemaClass<unknown, unknown, never>;
    timeoutSeconds: typeof Schema.Int;
    heartbeatTimeoutSeconds: typeof Schema.Int;
}>;
export declare const PolledRun: Schema.Struct<{
    trigger: Schema.Struct<{
        id: typeof Schema.UUID;
        name: typeof Schema.String;
        input: Schema.SchemaClass<unknown, unknown, never>;
        timeoutSeconds: typeof Schema.Int;
        heartbeatTimeoutSeconds: typeof Schema.Int;
    }>;
    id: typeof Schema.UUID;
    triggerId: typeof Schema.UUID;
    environmentId: typeof Schema.UUID;
    status: Schema.Literal<["queued", "assigned", "claimed", "running", "succeeded", "failed", "timed_out"]>;
    attempt: typeof Schema.Int;
    retryOfRunId: Schema.NullOr<typeof Schema.UUID>;
    workerId: Schema.NullOr<typeof Schema.UUID>;
    input: typeof Schema.Unknown;
    durationMs: Schema.NullOr<typeof Schema.Int>;
    shortMessage: Schema.NullOr<typeof Schema.String>;
    errorMessage: Schema.NullOr<typeof Schema.String>;
    costUsd: Schema.NullOr<typeof Schema.String>;
    faultClass: Schema.NullOr<Schema.Literal<["infra", "client", "none"]>>;
    createdAt: typeof Schema.Date;
    assignedAt: Schema.NullOr<typeof Schema.Date>;
    claimedAt: Schema.NullOr<typeof Schema.Date>;
    startedAt: Schema.NullOr<typeof Schema.Date>;
    lastHeartbeatAt: Schema.NullOr<typeof Schema.Date>;
    endedAt: Schema.NullOr<typeof Schema.Date>;
}>;
export declare const PollParams: Schema.Struct<{
    wait: Schema.optional<Schema.refine<number, Schema.filter<typeof Schema.NumberFromString>>>;
    claim: Schema.optional<Schema.Literal<["true", "false"]>>;
    max: Schema.optional<Schema.refine<number, Schema.filter<typeof Schema.NumberFromString>>>;
    start: Schema.optional<Schema.Literal<["true", "false"]>>;
}>;
export declare const CompletePayload: Schema.Struct<{
    status: Schema.Literal<["succeeded", "failed"]>;
    stdout: Schema.optional<typeof Schema.String>;
    stderr: Schema.optional<typeof Schema.String>;
    costUsd: Schema.optional<Schema.refine<string, typeof Schema.String>>;
    faultClass: Schema.optional<Schema.Literal<["infra", "client", "none"]>>;
}>;
/** The batched complete: several runs of one worker in one call (at most 100). */
export declare const CompleteManyPayload: Schema.Struct<{
    runs: Schema.refine<readonly {
        readonly status: "succeeded" | "failed";
        readonly costUsd?: string | undefined;
        readonly faultClass?: "infra" | "client" | "none" | undefined;
        readonly runId: string;
        readonly stdout?: string | undefined;
        readonly stderr?: string | undefined;
    }[], Schema.filter<Schema.Array$<Schema.Struct<{
        status: Schema.Literal<["succeeded", "failed"]>;
        stdout: Schema.optional<typeof Schema.String>;
        stderr: Schema.optional<typeof Schema.String>;
        costUsd: Schema.optional<Schema.refine<string, typeof Schema.String>>;
        faultClass: Schema.optional<Schema.Literal<["infra", "client", "none"]>>;
        runId: typeof Schema.String;
    }>>>>;
}>;
export declare const RejectedRun: Schema.Struct<{
    runId: typeof Schema.String;
    status: Schema.Literal<[404, 409]>;
    error: typeof Schema.String;
}>;
declare const WorkerApi_base: HttpApiGroup.HttpApiGroup<"workerProtocol", HttpApiEndpoint.HttpApiEndpoint<"me", "GET", never, never, never, never, Worker, NotFound, never, never> | HttpApiEndpoint.HttpApiEndpoint<"poll", "GET", {
    readonly id: string;
}, {
    readonly max?: number | undefined;
    readonly wait?: number | undefined;
    readonly claim?: "true" | "false" | undefined;
    readonly start?: "true" | "false" | undefined;
}, never, never, {
    readonly runs: readonly {
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
        readonly trigger: {
            readonly id: string;
            readonly name: string;
            readonly input: unknown;
            readonly timeoutSeconds: number;
            readonly heartbeatTimeoutSeconds: number;
        };
    }[];
}, NotFound, never, never> | HttpApiEndpoint.HttpApiEndpoint<"claim", "POST", {
    readonly id: string;
    readonly runId: string;
}, never, never, never, {
    readonly run: {
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
    };
}, NotFound | Conflict, never, never> | HttpApiEndpoint.HttpApiEndpoint<"start", "POST", {
    readonly id: string;
    readonly runId: string;
}, never, never, never, {
    readonly run: {
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
    };
}, NotFound | Conflict, never, never> | HttpApiEndpoint.HttpApiEndpoint<"heartbeat", "POST", {
    readonly id: string;
    readonly runId: string;
}, never, never, never, {
    readonly run: {
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
    };
}, NotFound | Conflict, never, never> | HttpApiEndpoint.HttpApiEndpoint<"complete", "POST", {
    readonly id: string;
    readonly runId: string;
}, never, {
    readonly status: "succeeded" | "failed";
    readonly costUsd?: string | undefined;
    readonly faultClass?: "infra" | "client" | "none" | undefined;
    readonly stdout?: string | undefined;
    readonly stderr?: string | undefined;
}, never, {
    readonly run: {
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
    };
}, NotFound | Conflict, never, never> | HttpApiEndpoint.HttpApiEndpoint<"completeMany", "POST", {
    readonly id: string;
}, never, {
    readonly runs: readonly {
        readonly status: "succeeded" | "failed";
        readonly costUsd?: string | undefined;
        readonly faultClass?: "infra" | "client" | "none" | undefined;
        readonly runId: string;
        readonly stdout?: string | undefined;
        readonly stderr?: string | undefined;
    }[];
}, never, {
    readonly runs: readonly {
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
    readonly rejected: readonly {
        readonly error: string;
        readonly status: 404 | 409;
        readonly runId: string;
    }[];
}, NotFound, never, never>, import("../Domain/Errors.js").Unauthorized, WorkerAuthentication, false>;
/** The worker protocol, all behind a `wkt_` bearer token. */
export declare class WorkerApi extends WorkerApi_base {
}
export {};
//# sourceMappingURL=WorkerApi.d.ts.map