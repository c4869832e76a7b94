import * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { AuditLog } from "../Audit/AuditLog.js"
import { CurrentActor } from "../Auth/Security.js"
import { uuidv7 } from "../Crypto/Ids.js"
import { SecretBox } from "../Crypto/SecretBox.js"
import { generate, sha256 } from "../Crypto/Tokens.js"
import { ValidationError } from "../Domain/Errors.js"
import type { InsufficientRole, NotVisible } from "../Tenancy/TenancyErrors.js"
import { decodeCursor, defaultLimit, page } from "../Domain/Pagination.js"
import type { Role } from "../Domain/Schemas.js"
import { Policy } from "../Tenancy/Policy.js"
import { UrlGuard } from "../Webhooks/UrlGuard.js"
import { type CreateTrigger, type PatchTrigger, Trigger } from "./Api.js"
import * as Schedule from "./Schedule.js"
import { schedulesChannel } from "./ScheduleSignal.js"
import { TriggerHasActiveRuns, TriggerNotFound } from "./TriggerErrors.js"
import { type TriggerChanges, type TriggerRow, TriggersRepo } from "./TriggersRepo.js"
import { rowsAreValid } from "../Domain/Rows.js"

export const toTrigger = (row: TriggerRow): Trigger =>
  new Trigger({
    id: row.id,
    environmentId: row.environment_id,
    name: row.name,
    description: row.description,
    workerId: row.worker_id,
    input: row.input ?? null,
    timeoutSeconds: row.timeout_seconds,
    heartbeatTimeoutSeconds: row.heartbeat_timeout_seconds,
    maxRetries: row.max_retries,
    webhookUrl: row.webhook_url,
    hasWebhookSecret: row.webhook_secret_enc !== null,
    schedule: row.schedule_cron === null ? null : {
      cron: row.schedule_cron,
      timezone: row.schedule_timezone ?? Schedule.defaultTimeZone,
      catchUp: row.schedule_catch_up ?? Schedule.defaultCatchUp
    },
    nextRunAt: row.next_run_at === null ? null : new Date(row.next_run_at),
    createdAt: row.created_at,
    updatedAt: row.updated_at
  }, rowsAreValid)

export const defaults = { timeoutSeconds: 3600, heartbeatTimeoutSeconds: 30, maxRetries: 0 } as const

const scheduleOf = (row: TriggerRow): ScheduleColumns => ({
  schedule_cron: row.schedule_cron,
  schedule_timezone: row.schedule_timezone,
  schedule_catch_up: row.schedule_catch_up,
  next_run_at: row.next_run_at
})

type Create = typeof CreateTrigger.Type
type Patch = typeof PatchTrigger.Type

/** The API's field name for each column a PATCH can change (audit metadata lists these). */
const fieldNames: Record<keyof TriggerChanges, string> = {
  name: "name",
  description: "description",
  worker_id: "workerId",
  input: "input",
  timeout_seconds: "timeoutSeconds",
  heartbeat_timeout_seconds: "heartbeatTimeoutSeconds",
  max_retries: "maxRetries",
  webhook_url: "webhookUrl",
  webhook_secret_enc: "webhookSecret",
  schedule_cron: "schedule",
  schedule_timezone: "schedule",
  schedule_catch_up: "schedule",
  // Follows the schedule; never compared on its own.
  next_run_at: "schedule"
}

type ScheduleColumns = Pick<TriggerChanges, "schedule_cron" | "schedule_timezone" | "schedule_catch_up" | "next_run_at">

/** The columns for a schedule (or none), its first tick being the first after `now`. */
const scheduleColumns = (input: Schedule.ScheduleInput | null, now: number): ScheduleColumns => {
  if (input === null) return { schedule_cron: null, schedule_timezone: null, schedule_catch_up: null, next_run_at: null }
  const schedule = Schedule.resolve(input)
  const next = Schedule.nextAfter(Schedule.cronOf(schedule), now)
  return {
    schedule_cron: schedule.cron,
    schedule_timezone: schedule.timezone,
    schedule_catch_up: schedule.catchUp,
    next_run_at: next === undefined ? null : new Date(next)
  }
}

/**
 * Trigger use cases: each mutation and its audit record commit together. The
 * webhook secret is sealed with SecretBox before it reaches SQL and is never
 * decrypted here; audit metadata names changed fields, never their values.
 */
export class Triggers extends Effect.Service<Triggers>()("Triggers/Triggers", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* TriggersRepo
    const policy = yield* Policy
    const audit = yield* AuditLog
    const box = yield* SecretBox
    const guard = yield* UrlGuard

    /**
     * Every instance's scheduling fiber re-reads the earliest tick. Postgres
     * delivers the notification at commit, so the fiber sees the change; a
     * lost signal only delays a new schedule until the fiber's next bounded
     * wake-up (`ScheduleFiring.maxSleepMillis`).
     */
    const scheduleChanged = (triggerId: string) => sql`SELECT pg_notify(${schedulesChannel}, ${triggerId})`

    const requireEnvironment = (environmentId: string, min: Role) => policy.requireRole(environmentId, min)

    /** A pinned worker must belong to the trigger's own environment. */
    const checkWorker = (environmentId: string, workerId: string | null): Effect.Effect<void, ValidationError> =>
      workerId === null ? Effect.void : sql<{ id: string }>`
        SELECT id FROM workers WHERE id = ${workerId} AND environment_id = ${environmentId}`.pipe(
        Effect.orDie,
        Effect.flatMap((rows) =>
          rows.length > 0
            ? Effect.void
            : Effect.fail(ValidationError.field("workerId", "must be a worker of the trigger's environment"))
        )
      )

    const checkUrl = (url: string | null | undefined): Effect.Effect<void, ValidationError> =>
      url === null || url === undefined ? Effect.void : guard.validateForSave(url)

    /** Empty (or null) means "no secret given". */
    const sealed = (secret: string | null | undefined): string | null =>
      secret === null || secret === undefined || secret.length === 0 ? null : box.seal(secret)

    const create = Effect.fn("Triggers.create")(function*(environmentId: string, input: Create) {
      yield* requireEnvironment(environmentId, "admin")
      const workerId = input.workerId ?? null
      yield* checkWorker(environmentId, workerId)
      yield* checkUrl(input.webhookUrl)
      const actor = yield* CurrentActor
      const id = uuidv7()
      const schedule = scheduleColumns(input.schedule ?? null, yield* Clock.currentTimeMillis)
      const row = yield* sql.withTransaction(Effect.gen(function*() {
        const row = yield* repo.insert(id, environmentId, {
          name: input.name,
          description: input.description ?? null,
          worker_id: workerId,
          input: input.input ?? null,
          timeout_seconds: input.timeoutSeconds ?? defaults.timeoutSeconds,
          heartbeat_timeout_seconds: input.heartbeatTimeoutSeconds ?? defaults.heartbeatTimeoutSeconds,
          max_retries: input.maxRetries ?? defaults.maxRetries,
          webhook_url: input.webhookUrl ?? null,
          webhook_secret_enc: sealed(input.webhookSecret),
          ...schedule
        })
        yield* audit.record({
          environmentId,
          actor,
          action: "trigger.created",
          targetType: "trigger",
          targetId: id,
          metadata: {
            name: row.name,
            hasWebhook: row.webhook_url !== null,
            hasWebhookSecret: row.webhook_secret_enc !== null,
            hasSchedule: row.schedule_cron !== null
          }
        })
        if (row.schedule_cron !== null) yield* scheduleChanged(id)
        return row
      })).pipe(Effect.orDie)
      return toTrigger(row)
    }, (effect, environmentId) => Effect.annotateLogs(effect, { environmentId }))

    const get = (id: string): Effect.Effect<Trigger, TriggerNotFound | NotVisible | InsufficientRole, CurrentActor> =>
      Effect.map(repo.findVisible(id, "viewer"), toTrigger)

    const list = Effect.fn("Triggers.list")(function*(
      environmentId: string,
      params: { readonly cursor?: string | undefined; readonly limit?: number | undefined; readonly workerId?: string | undefined }
    ) {
      yield* requireEnvironment(environmentId, "viewer")
      const after = yield* decodeCursor(params.cursor)
      const limit = params.limit ?? defaultLimit
      const rows = yield* repo.list(environmentId, { after, workerId: params.workerId, limit })
      const result = page(rows, limit)
      return { items: result.items.map(toTrigger), nextCursor: result.nextCursor }
    })

    const update = Effect.fn("Triggers.update")(function*(id: string, patch: Patch) {
      const current = yield* repo.findVisible(id, "admin")
      if (patch.workerId !== undefined) yield* checkWorker(current.environment_id, patch.workerId)
      yield* checkUrl(patch.webhookUrl)
      const actor = yield* CurrentActor
      const newSecret = sealed(patch.webhookSecret)
      const newSchedule = patch.schedule === undefined
        ? undefined
        : scheduleColumns(patch.schedule, yield* Clock.currentTimeMillis)
      const row = yield* sql.withTransaction(Effect.gen(function*() {
        // Re-read under a row lock so two PATCHes of different fields both survive.
        const locked = yield* repo.lockActive(id)
        if (Option.isNone(locked)) return yield* Effect.fail(new TriggerNotFound({ triggerId: id }))
        const before = locked.value
        const kept = scheduleOf(before)
        // The same schedule sent again keeps its next tick (re-sending it must not shift or skip one).
        const scheduleSame = newSchedule === undefined || (newSchedule.schedule_cron === kept.schedule_cron &&
          newSchedule.schedule_timezone === kept.schedule_timezone &&
          newSchedule.schedule_catch_up === kept.schedule_catch_up)
        const next: TriggerChanges = {
          name: patch.name ?? before.name,
          description: patch.description !== undefined ? patch.description : before.description,
          worker_id: patch.workerId !== undefined ? patch.workerId : before.worker_id,
          input: patch.input !== undefined ? patch.input : before.input,
          timeout_seconds: patch.timeoutSeconds ?? before.timeout_seconds,
          heartbeat_timeout_seconds: patch.heartbeatTimeoutSeconds ?? before.heartbeat_timeout_seconds,
          max_retries: patch.maxRetries ?? before.max_retries,
          webhook_url: patch.webhookUrl !== undefined ? patch.webhookUrl : before.webhook_url,
          // Removing the webhook drops its secret too, unless a new one comes with the same request.
          webhook_secret_enc: newSecret ?? (patch.webhookUrl === null ? null : before.webhook_secret_enc),
          ...(scheduleSame ? kept : newSchedule)
        }
        const changed = (Object.keys(fieldNames) as Array<keyof TriggerChanges>).filter((k) =>
          k === "next_run_at"
            ? false
            : k === "webhook_secret_enc"
            ? next.webhook_secret_enc !== before.webhook_secret_enc
            : JSON.stringify(next[k] ?? null) !== JSON.stringify(before[k] ?? null)
        )
        if (changed.length === 0) return before
        const updated = yield* repo.update(id, next)
        if (Option.isNone(updated)) return yield* Effect.fail(new TriggerNotFound({ triggerId: id }))
        yield* audit.record({
          environmentId: before.environment_id,
          actor,
          action: "trigger.updated",
          targetType: "trigger",
          targetId: id,
          metadata: { changed: [...new Set(changed.map((k) => fieldNames[k]))] }
        })
        if (!scheduleSame) yield* scheduleChanged(id)
        return updated.value
      })).pipe(Effect.catchTag("SqlError", Effect.die))
      return toTrigger(row)
    }, (effect, id) => Effect.annotateLogs(effect, { triggerId: id }))

    const remove = Effect.fn("Triggers.remove")(function*(id: string) {
      const current = yield* repo.findVisible(id, "admin")
      const actor = yield* CurrentActor
      yield* sql.withTransaction(Effect.gen(function*() {
        // Waits for a run request holding the trigger row (FOR SHARE) to commit; the
        // conditional UPDATE below is then a new statement whose snapshot sees that run.
        // Later run requests wait on this lock and then find the trigger deleted.
        if (Option.isNone(yield* repo.lockActive(id))) return yield* Effect.fail(new TriggerNotFound({ triggerId: id }))
        if (!(yield* repo.softDelete(id))) {
          // The row is locked and not deleted, so only active runs can have refused it.
          return yield* Effect.fail(new TriggerHasActiveRuns({ triggerId: id }))
        }
        yield* audit.record({
          environmentId: current.environment_id,
          actor,
          action: "trigger.deleted",
          targetType: "trigger",
          targetId: id,
          metadata: { name: current.name }
        })
      })).pipe(Effect.catchTag("SqlError", Effect.die))
    }, (effect, id) => Effect.annotateLogs(effect, { triggerId: id }))

    /** A new `mcp_` token; only its SHA-256 is stored, so the previous one stops working at once. */
    const rotateMcpToken = Effect.fn("Triggers.rotateMcpToken")(function*(id: string) {
      const current = yield* repo.findVisible(id, "admin")
      const actor = yield* CurrentActor
      const token = generate("mcp")
      yield* sql.withTransaction(Effect.gen(function*() {
        if (!(yield* repo.setMcpTokenHash(id, sha256(token)))) return yield* Effect.fail(new TriggerNotFound({ triggerId: id }))
        yield* audit.record({
          environmentId: current.environment_id,
          actor,
          action: "trigger.mcp_token_rotated",
          targetType: "trigger",
          targetId: id
        })
      })).pipe(Effect.catchTag("SqlError", Effect.die))
      return { mcpToken: token }
    }, (effect, id) => Effect.annotateLogs(effect, { triggerId: id }))

    return { create, get, list, update, remove, rotateMcpToken } as const
  }),
  dependencies: [TriggersRepo.Default, Policy.Default, AuditLog.Default, SecretBox.Default, UrlGuard.Default]
}) {}
