import * as Schema from "effect/Schema";
export declare const RunStatus: Schema.Literal<["queued", "assigned", "claimed", "running", "succeeded", "failed", "timed_out"]>;
export type RunStatus = typeof RunStatus.Type;
export declare const activeStatuses: readonly ["queued", "assigned", "claimed", "running"];
export declare const terminalStatuses: readonly ["succeeded", "failed", "timed_out"];
export type TerminalStatus = typeof terminalStatuses[number];
export declare const FaultClass: Schema.Literal<["infra", "client", "none"]>;
export type FaultClass = typeof FaultClass.Type;
/** The run object of the contract; fields not yet known are null. */
export declare const Run: Schema.Struct<{
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
export type Run = typeof Run.Type;
/** A `runs` row as the database returns it (numeric and bigint come back as text). */
export interface RunRow {
    readonly id: string;
    readonly trigger_id: string;
    readonly environment_id: string;
    readonly status: RunStatus;
    readonly attempt: number;
    readonly retry_of_run_id: string | null;
    readonly worker_id: string | null;
    readonly input: unknown;
    readonly duration_ms: number | string | null;
    readonly short_message: string | null;
    readonly error_message: string | null;
    readonly cost_usd: string | null;
    readonly fault_class: FaultClass | null;
    readonly idempotency_key: string | null;
    readonly timeout_seconds: number;
    readonly heartbeat_timeout_seconds: number;
    readonly max_retries: number;
    readonly webhook_url: string | null;
    readonly webhook_secret_enc: string | null;
    readonly deadline_at: Date | null;
    readonly created_at: Date;
    readonly assigned_at: Date | null;
    readonly claimed_at: Date | null;
    readonly started_at: Date | null;
    readonly last_heartbeat_at: Date | null;
    readonly ended_at: Date | null;
}
/** Never exposes the idempotency key, the snapshot or the (encrypted) webhook secret. */
export declare const toRun: (row: RunRow) => Run;
/** Path ids are checked before they reach SQL: a malformed id is simply not found. */
export declare const isUuid: (value: string) => boolean;
//# sourceMappingURL=Run.d.ts.map