import * as SqlClient from "@effect/sql/SqlClient";
import type { SqlError } from "@effect/sql/SqlError";
import * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import * as Option from "effect/Option";
/** A row of `webhook_outbox`: one pending delivery, with the run's URL, secret snapshot and the body to send. */
export interface OutboxRow {
    readonly run_id: string;
    readonly trigger_id: string;
    readonly url: string;
    readonly secret_enc: string | null;
    readonly payload: string;
    readonly attempts: number;
    readonly last_status_code: number | null;
    readonly last_response_body: string | null;
    readonly last_error: string | null;
}
/** A row of `webhook_deliveries`: the final outcome of one run's delivery. */
export interface DeliveryRow {
    readonly id: string;
    readonly run_id: string;
    readonly trigger_id: string;
    readonly url: string;
    readonly outcome: "delivered" | "failed";
    readonly status_code: number | null;
    readonly response_body: string | null;
    readonly attempt_count: number;
    readonly error_message: string | null;
    readonly created_at: Date;
}
export interface FinalOutcome {
    readonly outcome: "delivered" | "failed";
    readonly statusCode: number | null;
    readonly responseBody: string | null;
    readonly attempts: number;
    readonly error: string | null;
}
declare const DeliveriesRepo_base: Effect.Service.Class<DeliveriesRepo, "Webhooks/DeliveriesRepo", {
    readonly effect: Effect.Effect<{
        readonly lease: (owner: string, limit: number, leaseFor: Duration.DurationInput) => Effect.Effect<ReadonlyArray<OutboxRow>, SqlError>;
        readonly reschedule: (owner: string, runId: string, attempts: number, delay: Duration.DurationInput, leaseFor: Duration.DurationInput, last: {
            statusCode: number | null;
            responseBody: string | null;
            error: string;
        }) => Effect.Effect<void, SqlError>;
        readonly finalizeMany: (owner: string, items: ReadonlyArray<{
            readonly row: OutboxRow;
            readonly final: FinalOutcome;
        }>) => Effect.Effect<ReadonlySet<string>, SqlError>;
        readonly release: (owner: string) => Effect.Effect<number, SqlError>;
        readonly nextDueIn: Effect.Effect<Option.Option<number>, SqlError, never>;
        readonly triggerEnvironment: (triggerId: string) => Effect.Effect<Option.Option<string>, SqlError>;
        readonly listByTrigger: (triggerId: string, before: string | undefined, limit: number) => Effect.Effect<ReadonlyArray<DeliveryRow>, SqlError>;
    }, never, SqlClient.SqlClient>;
}>;
/**
 * The outbox and the delivery log. Every statement that changes an outbox row
 * checks `lease_owner`, so an instance whose lease expired (and was taken by
 * another) cannot touch the row any more.
 */
export declare class DeliveriesRepo extends DeliveriesRepo_base {
}
export {};
//# sourceMappingURL=DeliveriesRepo.d.ts.map