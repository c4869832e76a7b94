import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { AuditLog } from "../Audit/AuditLog.js"
import { CurrentActor } from "../Contract/Security.js"
import { uuidv7 } from "../Crypto/Ids.js"
import { SecretBox } from "../Crypto/SecretBox.js"
import { generate, sha256 } from "../Crypto/Tokens.js"
import { ValidationError } from "../Contract/Domain/ApiErrors.js"
import * as InputSchema from "../Scheduler/InputSchema.js"
import type { InsufficientRole, NotVisible } from "../Tenancy/TenancyErrors.js"
import { decodeCursor, defaultLimit, page } from "../Db/Pagination.js"
import type { Role } from "../Contract/Domain/Schemas.js"
import { Policy } from "../Tenancy/Policy.js"
import { UrlGuard } from "../Webhooks/UrlGuard.js"
import { type ConcurrencyInput, type CreateTrigger, defaultRetryPolicy, type PatchTrigger, type Trigger } from "../Contract/TriggersApi.js"
import * as Schedule from "../Contract/Schedule.js"
import * as Ticks from "./Ticks.js"
import { relimit } from "../RunStore/SqlRunStore.js"
import { schedulesChannel } from "./ScheduleSignal.js"
import { TriggerHasActiveRuns, TriggerNotFound } from "./TriggerErrors.js"
import { isLimited, type TriggerChanges } from "./TriggerRow.js"
import { TriggersRepo } from "./TriggersRepo.js"

export const defaults = { timeoutSeconds: 3600, heartbeatTimeoutSeconds: 30, maxRetries: 0 } as const

const scheduleOf = (row: TriggerChanges): ScheduleColumns => ({
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
  command: "command",
  input: "input",
  input_schema: "inputSchema",
  default_tags: "defaultTags",
  timeout_seconds: "timeoutSeconds",
  heartbeat_timeout_seconds: "heartbeatTimeoutSeconds",
  max_retries: "maxRetries",
  retry_policy: "retry",
  ttl_seconds: "ttlSeconds",
  webhook_url: "webhookUrl",
  webhook_secret_enc: "webhookSecret",
  schedule_cron: "schedule",
  schedule_timezone: "schedule",
  schedule_catch_up: "schedule",
  // Follows the schedule; never compared on its own.
  next_run_at: "schedule",
  concurrency_limit: "concurrency",
  concurrency_per_key: "concurrency",
  concurrency_key_from: "concurrency",
  concurrency_pool_id: "concurrency"
}

type ConcurrencyColumns = Pick<
  TriggerChanges,
  "concurrency_limit" | "concurrency_per_key" | "concurrency_key_from" | "concurrency_pool_id"
>

const noConcurrency: ConcurrencyColumns = {
  concurrency_limit: null,
  concurrency_per_key: null,
  concurrency_key_from: null,
  concurrency_pool_id: null
}

type ScheduleColumns = Pick<TriggerChanges, "schedule_cron" | "schedule_timezone" | "schedule_catch_up" | "next_run_at">

/** The columns for a schedule (or none), its first tick being the first after `now`. */
const scheduleColumns = (input: Schedule.ScheduleInput | null, now: number): ScheduleColumns => {
  if (input === null) return { schedule_cron: null, schedule_timezone: null, schedule_catch_up: null, next_run_at: null }
  const schedule = Schedule.resolve(input)
  const next = Ticks.nextAfter(Ticks.cronOf(schedule), now)
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

    /**
     * The trigger when it exists, is not deleted and the caller has at least
     * `min` in its environment: `TriggerNotFound` when missing or deleted;
     * the access policy's `NotVisible` or `InsufficientRole` otherwise.
     */
    const findVisible = (id: string, min: Role): Effect.Effect<Trigger, TriggerNotFound | NotVisible | InsufficientRole, CurrentActor> =>
      Effect.gen(function*() {
        const trigger = yield* repo.findActive(id)
        if (Option.isNone(trigger)) return yield* Effect.fail(new TriggerNotFound({ triggerId: id }))
        yield* policy.requireRole(trigger.value.environmentId, min, "trigger")
        return trigger.value
      })

    const workerInEnvironment = SqlSchema.findOne({
      Request: Schema.Struct({ environmentId: Schema.String, workerId: Schema.String }),
      Result: Schema.Struct({ id: Schema.String }),
      execute: ({ environmentId, workerId }) =>
        sql`SELECT id FROM workers WHERE id = ${workerId} AND environment_id = ${environmentId}`
    })

    /** A pinned worker must belong to the trigger's own environment. */
    const checkWorker = (environmentId: string, workerId: string | null): Effect.Effect<void, ValidationError> =>
      workerId === null ? Effect.void : workerInEnvironment({ environmentId, workerId }).pipe(
        Effect.orDie,
        Effect.flatMap((worker) =>
          Option.isSome(worker)
            ? Effect.void
            : Effect.fail(ValidationError.field("workerId", "must be a worker of the trigger's environment"))
        )
      )

    const checkUrl = (url: string | null | undefined): Effect.Effect<void, ValidationError> =>
      url === null || url === undefined ? Effect.void : guard.validateForSave(url)

    /**
     * A declared input schema must be one Ajv can use (400 on `inputSchema`
     * naming the problem), and the trigger's own input, when it has one, must
     * match it (400 on `input` naming the path): runs without an input of
     * their own, a schedule's among them, get that input.
     */
    const checkInputSchema = (schema: unknown, input: unknown): Effect.Effect<void, ValidationError> => {
      if (schema === null || schema === undefined) return Effect.void
      const compiled = InputSchema.compile(schema)
      if ("problem" in compiled) return Effect.fail(ValidationError.field("inputSchema", `is not a usable JSON Schema: ${compiled.problem}`))
      if (input === null) return Effect.void
      const problems = compiled.check(input)
      return problems === undefined
        ? Effect.void
        : Effect.fail(ValidationError.field("input", `does not match inputSchema: ${InputSchema.describe(problems)}`))
    }

    const poolNamed = (environmentId: string, name: string) =>
      sql<{ id: string }>`SELECT id FROM concurrency_pools WHERE environment_id = ${environmentId} AND name = ${name}`.pipe(
        Effect.map((rows) => rows[0]?.id),
        Effect.orDie
      )

    /** The columns for a trigger's flow control; a pool must be one of the environment's (else 400 on `concurrency`). */
    const concurrencyColumns = (
      environmentId: string,
      input: ConcurrencyInput | null
    ): Effect.Effect<ConcurrencyColumns, ValidationError> =>
      Effect.gen(function*() {
        if (input === null) return noConcurrency
        const pool = input.pool ?? null
        const poolId = pool === null ? null : yield* poolNamed(environmentId, pool)
        if (poolId === undefined) {
          return yield* Effect.fail(ValidationError.field("concurrency", `pool "${pool}" is not a concurrency pool of this environment`))
        }
        return {
          concurrency_limit: input.limit ?? null,
          concurrency_per_key: input.perKey ?? null,
          concurrency_key_from: input.keyFrom ?? null,
          concurrency_pool_id: poolId
        }
      })

    /** Empty (or null) means "no secret given". */
    const sealed = (secret: string | null | undefined): string | null =>
      secret === null || secret === undefined || secret.length === 0 ? null : box.seal(secret)

    const create = Effect.fn("Triggers.create")(function*(environmentId: string, input: Create) {
      yield* requireEnvironment(environmentId, "admin")
      const workerId = input.workerId ?? null
      yield* checkWorker(environmentId, workerId)
      yield* checkUrl(input.webhookUrl)
      yield* checkInputSchema(input.inputSchema ?? null, input.input ?? null)
      const actor = yield* CurrentActor
      const id = uuidv7()
      const schedule = scheduleColumns(input.schedule ?? null, yield* Clock.currentTimeMillis)
      const concurrency = yield* concurrencyColumns(environmentId, input.concurrency ?? null)
      return yield* sql.withTransaction(Effect.gen(function*() {
        const trigger = yield* repo.insert(id, environmentId, {
          name: input.name,
          description: input.description ?? null,
          worker_id: workerId,
          command: input.command ?? null,
          input: input.input ?? null,
          input_schema: input.inputSchema ?? null,
          default_tags: input.defaultTags ?? [],
          timeout_seconds: input.timeoutSeconds ?? defaults.timeoutSeconds,
          heartbeat_timeout_seconds: input.heartbeatTimeoutSeconds ?? defaults.heartbeatTimeoutSeconds,
          max_retries: input.maxRetries ?? defaults.maxRetries,
          retry_policy: input.retry === undefined ? null : { ...defaultRetryPolicy, ...input.retry },
          ttl_seconds: input.ttlSeconds ?? null,
          webhook_url: input.webhookUrl ?? null,
          webhook_secret_enc: sealed(input.webhookSecret),
          ...schedule,
          ...concurrency
        })
        yield* audit.record({
          environmentId,
          actor,
          action: "trigger.created",
          targetType: "trigger",
          targetId: id,
          metadata: {
            name: trigger.name,
            hasCommand: trigger.command !== null,
            hasInputSchema: trigger.inputSchema !== null,
            hasWebhook: trigger.webhookUrl !== null,
            hasWebhookSecret: trigger.hasWebhookSecret,
            hasSchedule: trigger.schedule !== null,
            hasConcurrency: trigger.concurrency !== null
          }
        })
        if (trigger.schedule !== null) yield* scheduleChanged(id)
        return trigger
      })).pipe(Effect.orDie)
    }, (effect, environmentId) => Effect.annotateLogs(effect, { environmentId }))

    const get = (id: string): Effect.Effect<Trigger, TriggerNotFound | NotVisible | InsufficientRole, CurrentActor> =>
      findVisible(id, "viewer")

    const list = Effect.fn("Triggers.list")(function*(
      environmentId: string,
      params: { readonly cursor?: string | undefined; readonly limit?: number | undefined; readonly workerId?: string | undefined }
    ) {
      yield* requireEnvironment(environmentId, "viewer")
      const after = yield* decodeCursor(params.cursor)
      const limit = params.limit ?? defaultLimit
      const rows = yield* repo.list(environmentId, { after, workerId: params.workerId, limit })
      return page(rows, limit)
    })

    const update = Effect.fn("Triggers.update")(function*(id: string, patch: Patch) {
      const current = yield* findVisible(id, "admin")
      if (patch.workerId !== undefined) yield* checkWorker(current.environmentId, patch.workerId)
      yield* checkUrl(patch.webhookUrl)
      const actor = yield* CurrentActor
      const newSecret = sealed(patch.webhookSecret)
      const newSchedule = patch.schedule === undefined
        ? undefined
        : scheduleColumns(patch.schedule, yield* Clock.currentTimeMillis)
      const newConcurrency = patch.concurrency === undefined ? undefined : yield* concurrencyColumns(current.environmentId, patch.concurrency)
      return yield* sql.withTransaction(Effect.gen(function*() {
        // Re-read under a row lock so two PATCHes of different fields both survive.
        const locked = yield* repo.lockActive(id)
        if (Option.isNone(locked)) return yield* Effect.fail(new TriggerNotFound({ triggerId: id }))
        const before = locked.value.stored
        const kept = scheduleOf(before)
        // The same schedule sent again keeps its next tick (re-sending it must not shift or skip one).
        const scheduleSame = newSchedule === undefined || (newSchedule.schedule_cron === kept.schedule_cron &&
          newSchedule.schedule_timezone === kept.schedule_timezone &&
          newSchedule.schedule_catch_up === kept.schedule_catch_up)
        const next: TriggerChanges = {
          name: patch.name ?? before.name,
          description: patch.description !== undefined ? patch.description : before.description,
          worker_id: patch.workerId !== undefined ? patch.workerId : before.worker_id,
          command: patch.command !== undefined ? patch.command : before.command,
          input: patch.input !== undefined ? patch.input : before.input,
          input_schema: patch.inputSchema !== undefined ? patch.inputSchema : before.input_schema,
          default_tags: patch.defaultTags ?? before.default_tags,
          timeout_seconds: patch.timeoutSeconds ?? before.timeout_seconds,
          heartbeat_timeout_seconds: patch.heartbeatTimeoutSeconds ?? before.heartbeat_timeout_seconds,
          max_retries: patch.maxRetries ?? before.max_retries,
          retry_policy: patch.retry === undefined ? before.retry_policy : { ...(before.retry_policy ?? defaultRetryPolicy), ...patch.retry },
          ttl_seconds: patch.ttlSeconds !== undefined ? patch.ttlSeconds : before.ttl_seconds,
          webhook_url: patch.webhookUrl !== undefined ? patch.webhookUrl : before.webhook_url,
          // Removing the webhook drops its secret too, unless a new one comes with the same request.
          webhook_secret_enc: newSecret ?? (patch.webhookUrl === null ? null : before.webhook_secret_enc),
          ...(scheduleSame ? kept : newSchedule),
          ...(newConcurrency ?? {
            concurrency_limit: before.concurrency_limit,
            concurrency_per_key: before.concurrency_per_key,
            concurrency_key_from: before.concurrency_key_from,
            concurrency_pool_id: before.concurrency_pool_id
          })
        }
        if (patch.inputSchema !== undefined || patch.input !== undefined) yield* checkInputSchema(next.input_schema ?? null, next.input ?? null)
        const changed = (Object.keys(fieldNames) as Array<keyof TriggerChanges>).filter((k) =>
          k === "next_run_at"
            ? false
            : k === "webhook_secret_enc"
            ? next.webhook_secret_enc !== before.webhook_secret_enc
            : JSON.stringify(next[k] ?? null) !== JSON.stringify(before[k] ?? null)
        )
        if (changed.length === 0) return locked.value.trigger
        const updated = yield* repo.update(id, next)
        if (Option.isNone(updated)) return yield* Effect.fail(new TriggerNotFound({ triggerId: id }))
        // Its open runs move between the free and the limited placement (under
        // this row lock, which run requests wait for).
        if (isLimited(next) !== isLimited(before)) yield* relimit(sql, id, isLimited(next))
        yield* audit.record({
          environmentId: current.environmentId,
          actor,
          action: "trigger.updated",
          targetType: "trigger",
          targetId: id,
          metadata: { changed: [...new Set(changed.map((k) => fieldNames[k]))] }
        })
        if (!scheduleSame) yield* scheduleChanged(id)
        return updated.value
      })).pipe(Effect.catchTag("SqlError", Effect.die))
    }, (effect, id) => Effect.annotateLogs(effect, { triggerId: id }))

    const remove = Effect.fn("Triggers.remove")(function*(id: string) {
      const current = yield* findVisible(id, "admin")
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
          environmentId: current.environmentId,
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
      const current = yield* findVisible(id, "admin")
      const actor = yield* CurrentActor
      const token = generate("mcp")
      yield* sql.withTransaction(Effect.gen(function*() {
        if (!(yield* repo.setMcpTokenHash(id, sha256(token)))) return yield* Effect.fail(new TriggerNotFound({ triggerId: id }))
        yield* audit.record({
          environmentId: current.environmentId,
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
