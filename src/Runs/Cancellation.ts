import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { actorColumns } from "../Audit/AuditLog.js"
import { CurrentActor } from "../Contract/Security.js"
import { RunNotFound, type RunRejection, RunStateConflict } from "../Scheduler/RunRejection.js"
import { Supervisor } from "../Scheduler/Supervision.js"
import { toMillis } from "../Db/Time.js"
import { Transitions } from "../Scheduler/Transitions.js"
import { Wakeups } from "../Scheduler/Dispatch.js"
import { assignedChannel } from "../RunStore/RunStore.js"
import { Policy } from "../Tenancy/Policy.js"
import type { InsufficientRole, NotVisible } from "../Tenancy/TenancyErrors.js"
import { RunHistory } from "./RunHistory.js"

/**
 * `POST /runs/{id}/cancel`: the caller's right to it (operator+ in the run's
 * environment; a run it cannot see is not found), the transition (see
 * `Transitions.cancel`), then what the new state needs on this instance: an
 * ended run's supervising fiber stopped; for a cancel request, the deadline
 * watched at the end of the grace period and the worker's waiting poll woken
 * (it answers the run in `cancelRequested`).
 */
export class RunCancellation extends Effect.Service<RunCancellation>()("Runs/Cancellation", {
  // Stateless reads: its own instance costs nothing and keeps the layer's requirements to the engine's.
  dependencies: [RunHistory.Default],
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const transitions = yield* Transitions
    const supervisor = yield* Supervisor
    const wakeups = yield* Wakeups
    const policy = yield* Policy
    const { find } = yield* RunHistory

    // `runId` is a decoded path id (see Contract/Domain/Uuids.pathId) or a stored one (MCP's cancel_run looks the run up first).
    // `bulkActionId`: the bulk action cancelling it, named in the audit record (and so recognised when it does a batch again).
    const cancel = Effect.fn("Runs.cancel")(function*(runId: string, bulkActionId?: string) {
      const run = yield* find(runId)
      // With the policy's NotVisible and InsufficientRole: the caller's access to the run's environment.
      if (run === undefined) return yield* Effect.fail<RunRejection | NotVisible | InsufficientRole>(new RunNotFound({ runId }))
      yield* policy.requireRole(run.environment_id, "operator", "run")
      const actor = yield* CurrentActor
      const changed = yield* transitions.cancel(run.id, run.environment_id, actorColumns(actor), bulkActionId)
      if (changed !== undefined) {
        const now = changed.run
        if (now.ended_at !== null) {
          yield* supervisor.release(now.id)
          yield* Effect.logInfo("run cancelled")
        } else {
          if (now.deadline_at !== null) yield* supervisor.watch(now.id, toMillis(now.deadline_at))
          if (now.worker_id !== null) {
            // Its waiting poll answers the request at once: here directly, on other instances through NOTIFY.
            yield* wakeups.wake(now.worker_id)
            yield* sql`SELECT pg_notify(${assignedChannel}, ${now.worker_id})`.pipe(Effect.orDie)
          }
          yield* Effect.logInfo("cancel requested; the run stays with its worker until it completes or the grace period ends")
        }
        return now
      }
      // Nothing matched: ended meanwhile, or a cancel was requested already (its run, unchanged).
      const current = yield* find(run.id)
      if (current === undefined) return yield* Effect.fail(new RunNotFound({ runId }))
      if (current.ended_at !== null) {
        return yield* Effect.fail(new RunStateConflict({ runId: current.id, step: "cancel", status: current.status }))
      }
      return current
    }, (effect, runId) => Effect.annotateLogs(effect, { runId }))

    return { cancel } as const
  })
}) {}
