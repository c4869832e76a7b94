import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { actorColumns } from "../Audit/AuditLog.js"
import { CurrentActor } from "../Contract/Security.js"
import { ValidationError } from "../Contract/Domain/ApiErrors.js"
import type { RunRow } from "../Contract/Domain/Run.js"
import { RunStore } from "../RunStore/RunStore.js"
import { DueAlarm } from "../Scheduler/Due.js"
import { RunNotFound, type RunRejection, RunStateConflict } from "../Scheduler/RunRejection.js"
import { Supervisor } from "../Scheduler/Supervision.js"
import { Policy } from "../Tenancy/Policy.js"
import type { InsufficientRole, NotVisible } from "../Tenancy/TenancyErrors.js"
import { maxDelaySeconds } from "../Contract/RunsApi.js"
import { RunHistory } from "./RunHistory.js"

/**
 * When a run may first be placed, from a request's `delaySeconds` or `runAt`
 * (epoch ms; undefined: at once). `runAt` must lie between now and 30 days
 * ahead, by this service's clock: a 400 naming `runAt` otherwise.
 */
export const availableAtOf = (request: {
  readonly delaySeconds?: number | undefined
  readonly runAt?: Date | undefined
}): Effect.Effect<number | undefined, ValidationError> =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    if (request.delaySeconds !== undefined) return request.delaySeconds === 0 ? undefined : now + request.delaySeconds * 1000
    if (request.runAt === undefined) return undefined
    const at = request.runAt.getTime()
    if (at < now) return yield* Effect.fail(ValidationError.field("runAt", "must not be in the past"))
    if (at > now + maxDelaySeconds * 1000) return yield* Effect.fail(ValidationError.field("runAt", "must be at most 30 days ahead"))
    return at
  })

/**
 * `PATCH /runs/{id}`: moves a run not placed yet (queued, no worker) to a
 * new moment (`RunStore.reschedule`: its queue rank and time-to-live move
 * with it; audited `run.rescheduled`). A run due now is assigned at once;
 * one due later is the due loop's (`DueAlarm`). A placed or ended run is a
 * `RunStateConflict` (409).
 */
export class RunReschedule extends Effect.Service<RunReschedule>()("Runs/Reschedule", {
  dependencies: [RunHistory.Default],
  effect: Effect.gen(function*() {
    const store = yield* RunStore
    const supervisor = yield* Supervisor
    const alarm = yield* DueAlarm
    const policy = yield* Policy
    const { find } = yield* RunHistory

    const reschedule = Effect.fn("Runs.reschedule")(function*(
      runId: string,
      when: { readonly delaySeconds?: number | undefined; readonly runAt?: Date | undefined }
    ) {
      const run = yield* find(runId)
      if (run === undefined) {
        return yield* Effect.fail<RunRejection | NotVisible | InsufficientRole | ValidationError>(new RunNotFound({ runId }))
      }
      yield* policy.requireRole(run.environment_id, "operator", "run")
      const at = (yield* availableAtOf(when)) ?? (yield* Clock.currentTimeMillis)
      const actor = yield* CurrentActor
      const [moved] = yield* store.reschedule(run.id, run.environment_id, new Date(at).toISOString(), actorColumns(actor))
      if (moved === undefined) {
        const current = yield* find(run.id)
        if (current === undefined) return yield* Effect.fail(new RunNotFound({ runId }))
        return yield* Effect.fail(new RunStateConflict({ runId: current.id, step: "reschedule", status: current.status }))
      }
      yield* alarm.ring([moved])
      if (!moved.delayed) yield* supervisor.assignAndWatch(moved.environment_id)
      yield* Effect.logInfo("run rescheduled").pipe(Effect.annotateLogs({ availableAt: new Date(at).toISOString() }))
      return moved satisfies RunRow
    }, (effect, runId) => Effect.annotateLogs(effect, { runId }))

    return { reschedule } as const
  })
}) {}
