import * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
import * as Redacted from "effect/Redacted";
import type * as Scope from "effect/Scope";
import * as Stream from "effect/Stream";
import { ApiKeys } from "../ApiKeys/ApiKeys.js";
import { type Forbidden, NotFound, ValidationError } from "../Domain/Errors.js";
import type { Role } from "../Domain/Schemas.js";
import { type Run, type RunStatus } from "../Runs/Run.js";
import { RunsRepo } from "../Runs/RunsRepo.js";
import { RunEvents } from "../Scheduler/RunEvents.js";
import { RunRequests } from "../Runs/RunRequests.js";
import { Workspaces } from "../Tenancy/Workspaces.js";
import { CreateTrigger, type Trigger } from "../Triggers/Api.js";
import { Triggers } from "../Triggers/Triggers.js";
import { Workers } from "../Workers/Workers.js";
import { PipelineTriggersConfig } from "./Config.js";
export interface RunFilter {
    readonly triggerId?: string | undefined;
    readonly environmentId?: string | undefined;
    readonly status?: RunStatus | undefined;
    readonly limit?: number | undefined;
}
export interface EmbeddedEnvironment {
    readonly workspaceId: string;
    readonly environmentId: string;
    readonly name: string;
}
declare const PipelineTriggers_base: Effect.Service.Class<PipelineTriggers, "PipelineTriggers/PipelineTriggers", {
    readonly effect: Effect.Effect<{
        readonly createEnvironment: (name: string, options?: {
            readonly workspace?: string;
        }) => Effect.Effect<EmbeddedEnvironment>;
        readonly createTrigger: (environmentId: string, fields: typeof CreateTrigger.Encoded) => Effect.Effect<Trigger, ValidationError | NotFound | Forbidden>;
        readonly getTrigger: (triggerId: string) => Effect.Effect<Trigger, NotFound | Forbidden>;
        readonly startRun: (triggerId: string, options?: {
            readonly input?: unknown;
            readonly idempotencyKey?: string;
        }) => Effect.Effect<Run, NotFound | ValidationError>;
        readonly getRun: (runId: string) => Effect.Effect<Run, NotFound>;
        readonly listRuns: (filter?: RunFilter) => Effect.Effect<ReadonlyArray<Run>>;
        readonly terminalRuns: Stream.Stream<{
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
        }, never, never>;
        readonly subscribeTerminalRuns: Effect.Effect<Stream.Stream<{
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
        }, never, never>, never, Scope.Scope>;
        readonly awaitTerminal: (runId: string) => Effect.Effect<Run, NotFound>;
        readonly mintRegistrationToken: (environmentId: string, name?: string) => Effect.Effect<string>;
        readonly mintApiKey: (environmentId: string, role?: Exclude<Role, "owner">, name?: string) => Effect.Effect<string>;
        readonly registerWorker: (environmentId: string, label?: string) => Effect.Effect<{
            readonly workerId: string;
            readonly token: Redacted.Redacted<string>;
        }>;
    }, never, SqlClient.SqlClient | ApiKeys | Workspaces | RunEvents | RunsRepo | RunRequests | Triggers | Workers | PipelineTriggersConfig>;
}>;
/**
 * The scheduler's typed services for an embedding Effect program: create
 * environments and triggers, start runs, read them, and follow terminal runs
 * as a `Stream`. Every call acts as the configured principal (see
 * `principalEmail`), with the same validation, audit records and scheduling
 * as the HTTP API.
 */
export declare class PipelineTriggers extends PipelineTriggers_base {
}
export {};
//# sourceMappingURL=PipelineTriggers.d.ts.map