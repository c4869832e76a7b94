import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Actor, CurrentActor } from "../Contract/Security.js"
import { ApiKeys } from "../ApiKeys/ApiKeys.js"
import { AuditLog } from "../Audit/AuditLog.js"
import { activeStatuses } from "../Contract/Domain/Run.js"
import type { Environment } from "../Contract/TenancyApi.js"
import { Policy } from "./Policy.js"
import { EnvironmentHasActiveRuns, EnvironmentNotFound, type InsufficientRole, type NotVisible } from "./TenancyErrors.js"
import { EnvironmentRow } from "./Workspaces.js"

/** Renaming (admin) and deleting (owner) environments, each checking the caller's role first (see Policy). */
export class Environments extends Effect.Service<Environments>()("Tenancy/Environments", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const audit = yield* AuditLog
    const policy = yield* Policy
    // Required, not a dependency: it must be the instance authentication uses (see `App.layerServices`).
    const apiKeys = yield* ApiKeys

    const lockedName = SqlSchema.findOne({
      Request: Schema.String,
      Result: Schema.Struct({ name: Schema.String }),
      execute: (id) => sql`SELECT name FROM environments WHERE id = ${id} FOR UPDATE`
    })

    const setName = SqlSchema.single({
      Request: Schema.Struct({ id: Schema.String, name: Schema.String }),
      Result: EnvironmentRow,
      execute: ({ id, name }) =>
        sql`UPDATE environments SET name = ${name}, updated_at = now() WHERE id = ${id}
            RETURNING id, workspace_id, name, created_at, updated_at`
    })

    const rename = (
      actor: Actor,
      id: string,
      name: string
    ): Effect.Effect<Environment, EnvironmentNotFound | NotVisible | InsufficientRole, CurrentActor> =>
      Effect.gen(function*() {
        yield* policy.requireRole(id, "admin")
        const previous = yield* Effect.orDie(lockedName(id))
        if (previous._tag === "None") return yield* Effect.fail(new EnvironmentNotFound({ environmentId: id }))
        const environment = yield* Effect.orDie(setName({ id, name }))
        yield* audit.record({
          environmentId: id,
          actor,
          action: "environment.updated",
          targetType: "environment",
          targetId: id,
          metadata: { name, previousName: previous.value.name }
        })
        return environment
      }).pipe(
        sql.withTransaction,
        Effect.catchTag("SqlError", Effect.die),
        Effect.withSpan("Environments.rename")
      )

    // Active: queued (no worker yet) or held by one of the environment's
    // workers, and not ended; each half has its own partial index.
    const activeRuns = SqlSchema.single({
      Request: Schema.String,
      Result: Schema.Struct({ n: Schema.Number }),
      execute: (id) =>
        sql`SELECT ((SELECT count(*) FROM runs
                     WHERE environment_id = ${id} AND worker_id IS NULL AND ended_at IS NULL AND status IN ${sql.in(activeStatuses)})
                  + (SELECT count(*) FROM runs r JOIN workers w ON w.id = r.worker_id
                     WHERE w.environment_id = ${id} AND r.ended_at IS NULL AND r.status IN ${sql.in(activeStatuses)}))::int AS n`
    })

    /**
     * Deletes the environment and, by cascade, everything in it. The row lock
     * makes the "no active runs" check race-free: a run being inserted holds a
     * key-share lock on the environment, so we wait for it and then see it.
     */
    const remove = (id: string): Effect.Effect<void, EnvironmentNotFound | EnvironmentHasActiveRuns | NotVisible | InsufficientRole, CurrentActor> =>
      Effect.gen(function*() {
        yield* policy.requireRole(id, "owner")
        const locked = yield* sql`SELECT id FROM environments WHERE id = ${id} FOR UPDATE`
        if (locked.length === 0) return yield* Effect.fail(new EnvironmentNotFound({ environmentId: id }))
        // Active: queued (no worker yet) or held by one of the environment's
        // workers, and not ended; each half has its own partial index.
        const { n } = yield* Effect.orDie(activeRuns(id))
        if (n > 0) return yield* Effect.fail(new EnvironmentHasActiveRuns({ environmentId: id, activeRuns: n }))
        yield* sql`DELETE FROM environments WHERE id = ${id}`
        yield* Effect.logInfo("environment deleted").pipe(Effect.annotateLogs({ environmentId: id }))
      }).pipe(
        sql.withTransaction,
        // Its API keys went with it (ON DELETE CASCADE); after the commit, so none is verified again in between.
        Effect.zipLeft(apiKeys.forgetEnvironment(id)),
        Effect.catchTag("SqlError", Effect.die),
        Effect.withSpan("Environments.remove")
      )

    return { rename, remove } as const
  }),
  dependencies: [AuditLog.Default, Policy.Default]
}) {}
