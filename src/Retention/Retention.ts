import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import type { AuditAction } from "../Audit/AuditLog.js"
import { RetentionConfig } from "./RetentionConfig.js"

export interface SweepResult {
  readonly runs: number
  readonly auditRows: number
}

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
export class Retention extends Effect.Service<Retention>()("Retention/Retention", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const config = yield* RetentionConfig

    // A batch answers only how many rows it deleted: the ids are not read, so not decoded.
    const runBatch = (environmentId: string, cutoff: string) =>
      sql`
        DELETE FROM runs WHERE id IN (
          SELECT r.id FROM runs r
          WHERE r.environment_id = ${environmentId} AND r.ended_at < ${cutoff}::timestamptz
            AND NOT EXISTS (SELECT 1 FROM webhook_outbox o WHERE o.run_id = r.id)
            AND NOT EXISTS (
              SELECT 1 FROM runs y WHERE y.retry_of_run_id = r.id
                AND (y.ended_at IS NULL OR y.ended_at >= ${cutoff}::timestamptz))
          ORDER BY r.ended_at
          LIMIT ${config.batchSize}
          FOR UPDATE SKIP LOCKED)
        RETURNING id`.pipe(Effect.map((rows) => rows.length))

    const auditBatch = (cutoff: string) =>
      sql`
        DELETE FROM audit_log WHERE id IN (
          SELECT id FROM audit_log
          WHERE action = ${"run.requested" satisfies AuditAction} AND created_at < ${cutoff}::timestamptz
          ORDER BY created_at
          LIMIT ${config.batchSize}
          FOR UPDATE SKIP LOCKED)
        RETURNING id`.pipe(Effect.map((rows) => rows.length))

    const environmentIds = SqlSchema.findAll({
      Request: Schema.Void,
      Result: Schema.Struct({ id: Schema.String }),
      execute: () => sql`SELECT id FROM environments ORDER BY id`
    })

    /** Repeats a batch until one deletes less than a full batch; answers the rows deleted. */
    const drain = (batch: Effect.Effect<number, unknown>): Effect.Effect<number, unknown> =>
      Effect.flatMap(batch, (n) =>
        n < config.batchSize
          ? Effect.succeed(n)
          : Effect.zipRight(Effect.sleep(config.pauseMillis), Effect.map(drain(batch), (rest) => n + rest)))

    /** One pass with the given retention (days); by default the configured one, and nothing when none is. */
    const sweep = (days: Option.Option<number> = config.runRetentionDays): Effect.Effect<SweepResult> =>
      Option.match(days, {
        onNone: () => Effect.succeed({ runs: 0, auditRows: 0 }),
        onSome: (days) =>
          Effect.gen(function*() {
            const cutoff = new Date((yield* Clock.currentTimeMillis) - days * 86_400_000).toISOString()
            const environments = yield* environmentIds(undefined)
            let runs = 0
            for (const env of environments) runs += yield* drain(runBatch(env.id, cutoff))
            const auditRows = yield* drain(auditBatch(cutoff))
            if (runs + auditRows > 0) {
              yield* Effect.logInfo("retention: old history deleted").pipe(Effect.annotateLogs({ runs, auditRows, cutoff }))
            }
            return { runs, auditRows }
          }).pipe(Effect.orDie, Effect.withSpan("Retention.sweep"))
      })

    return { sweep } as const
  })
}) {}

/**
 * The background pass: with `RUN_RETENTION_DAYS` set, a sweep soon after
 * start and then every `intervalMillis`, on a fiber of its own (a failed pass
 * is logged and the next one runs as planned). Nothing runs when it is unset.
 */
export const background: Layer.Layer<never, never, Retention | RetentionConfig> = Layer.scopedDiscard(
  Effect.gen(function*() {
    const config = yield* RetentionConfig
    if (Option.isNone(config.runRetentionDays)) return
    const retention = yield* Retention
    const pass = retention.sweep().pipe(Effect.catchAllCause((cause) => Effect.logWarning("retention pass failed", cause)))
    // Not at once: a starting instance has other work first.
    yield* Effect.sleep(Math.min(60_000, config.intervalMillis)).pipe(
      Effect.zipRight(Effect.repeat(pass, Schedule.spaced(config.intervalMillis))),
      Effect.forkScoped
    )
  })
)
