import * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
import * as Schema from "effect/Schema";
import { type RunRow } from "./Run.js";
import { WebhookDelivery } from "../Webhooks/Api.js";
/** One step of a run's timeline (`GET /runs/{id}/events`). */
export declare const RunEvent: Schema.Struct<{
    status: Schema.Literal<["queued", "assigned", "claimed", "running", "succeeded", "failed", "timed_out"]>;
    at: typeof Schema.Date;
    workerId: Schema.NullOr<typeof Schema.UUID>;
    reason: Schema.Literal<["requested", "assigned", "claimed", "started", "completed", "claim_timeout", "heartbeat_timeout", "execution_timeout", "cancelled", "worker_revoked", "released"]>;
}>;
export type RunEvent = typeof RunEvent.Type;
/** `GET /runs/{id}`: the run object with its trigger's name, its lineage, its latest webhook delivery and cancel request. */
export declare const RunDetail: Schema.Struct<{
    triggerName: typeof Schema.String;
    retriedByRunId: Schema.NullOr<typeof Schema.UUID>;
    delivery: Schema.NullOr<typeof WebhookDelivery>;
    cancelRequestedAt: Schema.NullOr<typeof Schema.Date>;
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
export type RunDetail = typeof RunDetail.Type;
declare const RunHistory_base: Effect.Service.Class<RunHistory, "Runs/History", {
    readonly effect: Effect.Effect<{
        readonly find: (runId: string) => Effect.Effect<RunRow | undefined>;
        readonly events: (runId: string) => Effect.Effect<ReadonlyArray<RunEvent>>;
        readonly detail: (run: RunRow) => Effect.Effect<RunDetail>;
    }, never, SqlClient.SqlClient>;
}>;
/** Reads of one run by id: the row and its stored timeline. */
export declare class RunHistory extends RunHistory_base {
}
export {};
//# sourceMappingURL=RunHistory.d.ts.map