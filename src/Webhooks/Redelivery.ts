import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { AuditLog } from "../Audit/AuditLog.js"
import { CurrentActor } from "../Contract/Security.js"
import { RunNotFound } from "../Scheduler/RunRejection.js"
import { Policy } from "../Tenancy/Policy.js"
import { DeliveriesRepo } from "./DeliveriesRepo.js"
import { DeliveryPending, RunNotEnded, WebhookNotConfigured } from "./WebhookErrors.js"

/**
 * Operators sending a terminal run's webhook again (a receiver lost it): a
 * new outbox row, so the delivery loop sends it with the usual retries and
 * records it as a delivery of its own (`trigger: "manual"`).
 */
export class Redelivery extends Effect.Service<Redelivery>()("Webhooks/Redelivery", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* DeliveriesRepo
    const policy = yield* Policy
    const audit = yield* AuditLog

    /**
     * operator+ on the run's environment. The outbox row and the audit record
     * commit together; the row is announced at that commit.
     */
    const redeliver = Effect.fn("Webhooks.redeliver")(function*(runId: string) {
      const run = yield* repo.runForRedelivery(runId).pipe(Effect.orDie)
      if (Option.isNone(run)) return yield* Effect.fail(new RunNotFound({ runId }))
      yield* policy.requireRole(run.value.environment_id, "operator", "run")
      if (!run.value.has_webhook) return yield* Effect.fail(new WebhookNotConfigured({ runId }))
      if (!run.value.terminal) return yield* Effect.fail(new RunNotEnded({ runId }))
      const actor = yield* CurrentActor
      yield* sql.withTransaction(Effect.gen(function*() {
        // Not inserted: a delivery is pending (the run is terminal and has a webhook, as read above).
        if (!(yield* repo.redeliver(runId))) return yield* Effect.fail(new DeliveryPending({ runId }))
        yield* audit.record({
          environmentId: run.value.environment_id,
          actor,
          action: "webhook.redelivered",
          targetType: "run",
          targetId: runId,
          metadata: { triggerId: run.value.trigger_id }
        })
      })).pipe(Effect.catchTag("SqlError", Effect.die))
      yield* Effect.logInfo("webhook redelivery queued").pipe(Effect.annotateLogs({ runId }))
      return { runId: runId.toLowerCase(), triggerId: run.value.trigger_id, trigger: "manual" as const }
    })

    return { redeliver } as const
  }),
  dependencies: [DeliveriesRepo.Default, Policy.Default, AuditLog.Default]
}) {}
