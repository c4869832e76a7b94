import * as SqlClient from "@effect/sql/SqlClient";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Option from "effect/Option";
import { RetentionConfig } from "./RetentionConfig.js";
export interface SweepResult {
    readonly runs: number;
    readonly auditRows: number;
}
declare const Retention_base: Effect.Service.Class<Retention, "Retention/Retention", {
    readonly effect: Effect.Effect<{
        readonly sweep: (days?: Option.Option<number>) => Effect.Effect<SweepResult>;
    }, never, SqlClient.SqlClient | RetentionConfig>;
}>;
/**
 * Deletes run history older than `RUN_RETENTION_DAYS`: terminal runs that
 * ended before the cutoff (their webhook delivery records and anything else
 * that hangs off a run go with them through ON DELETE CASCADE) and
 * `run.requested` audit rows written before it. Other audit rows are kept.
 *
 * Bounded batches (`batchSize` rows per statement, a pause between), each
 * statement its own short transaction, so request handling and the scheduler
 * never wait long behind it. Rows are picked with FOR UPDATE SKIP LOCKED, so
 * several instances sweeping at once delete disjoint rows instead of queueing.
 *
 * Left alone, however old: a run whose webhook is still pending (its outbox
 * row would go with it), and a run whose retry has not ended or ended after
 * the cutoff (deleting it would rewrite the younger run's `retryOfRunId` by
 * the foreign key's ON DELETE SET NULL). Such a run goes in a later pass,
 * once its retry is old too.
 */
export declare class Retention extends Retention_base {
}
/**
 * The background pass: with `RUN_RETENTION_DAYS` set, a sweep soon after
 * start and then every `intervalMillis`, on a fiber of its own (a failed pass
 * is logged and the next one runs as planned). Nothing runs when it is unset.
 */
export declare const background: Layer.Layer<never, never, Retention | RetentionConfig>;
export {};
//# sourceMappingURL=Retention.d.ts.map