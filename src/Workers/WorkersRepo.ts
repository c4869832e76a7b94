import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import type * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { Tuning } from "../Config/Tuning.js"
import { nowIso } from "../Db/Time.js"
import { workerOnline } from "../RunStore/Placement.js"
import { type Worker, WorkerStatus as Status } from "../Contract/WorkersApi.js"
import { WorkerRow } from "./WorkerRow.js"

export type WorkerStatus = Worker["status"]

export interface ListOptions {
  readonly status?: WorkerStatus | undefined
  readonly after?: string | undefined
  readonly limit: number
}

/** Data access for the worker registry; the `wkt_` token is stored only as its SHA-256. */
export class WorkersRepo extends Effect.Service<WorkersRepo>()("Workers/Repo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const config = yield* Tuning
    const offlineAfter = config.workerOfflineAfterSeconds

    // Online is decided on the scheduler's clock (the Effect `Clock`, which also
    // writes `last_seen_at`), by the same expression placement uses.
    const columnsAt = (now: string) =>
      sql`w.id, w.environment_id, w.workspace_id, w.label, w.last_seen_at, w.created_at,
        CASE WHEN w.revoked_at IS NOT NULL THEN 'revoked' WHEN w.draining THEN 'draining'
             WHEN (${workerOnline(sql, now, offlineAfter)}) THEN 'online' ELSE 'offline' END AS status`

    // The same status as a condition: revoked, else draining, else online or offline.
    const statusIs = (status: WorkerStatus, now: string): Statement.Fragment => {
      const onlineExpr = sql`(${workerOnline(sql, now, offlineAfter)})`
      const active = sql`w.revoked_at IS NULL AND NOT w.draining`
      switch (status) {
        case "revoked":
          return sql`w.revoked_at IS NOT NULL`
        case "draining":
          return sql`w.revoked_at IS NULL AND w.draining`
        case "online":
          return sql`${active} AND ${onlineExpr}`
        case "offline":
          return sql`${active} AND NOT ${onlineExpr}`
      }
    }

    const filters = (options: ListOptions, now: string): Array<Statement.Fragment> => [
      // A revoked worker is listed for 24 hours, then it is gone.
      sql`(w.revoked_at IS NULL OR w.revoked_at > now() - interval '24 hours')`,
      ...(options.status === undefined ? [] : [statusIs(options.status, now)]),
      ...(options.after === undefined ? [] : [sql`w.id < ${options.after}`])
    ]

    const consumed = SqlSchema.findOne({
      Request: Schema.String,
      Result: Schema.Struct({ id: Schema.String, environment_id: Schema.String, workspace_id: Schema.String }),
      execute: (tokenHash) =>
        sql`UPDATE api_keys k SET consumed_at = now()
            FROM environments e
            WHERE k.token_hash = ${tokenHash} AND k.prefix = 'wrk' AND k.consumed_at IS NULL AND e.id = k.environment_id
            RETURNING k.id, k.environment_id, e.workspace_id`
    })

    /**
     * Consumes a `wrk_` registration token: one conditional UPDATE, so of two
     * concurrent registrations with one token exactly one sees the row.
     */
    const consumeRegistrationToken = (
      tokenHash: string
    ): Effect.Effect<Option.Option<{ id: string; environment_id: string; workspace_id: string }>> =>
      Effect.orDie(consumed(tokenHash))

    // `now`: the scheduler's clock as ISO text, read per call (see `columnsAt`).
    const NewWorker = Schema.Struct({
      now: Schema.String,
      id: Schema.String,
      environmentId: Schema.String,
      workspaceId: Schema.String,
      label: Schema.String,
      tokenHash: Schema.String,
      registrationKeyId: Schema.String
    })

    const inserted = SqlSchema.single({
      Request: NewWorker,
      Result: WorkerRow,
      execute: (w) =>
        sql`INSERT INTO workers AS w (id, environment_id, workspace_id, label, token_hash, registration_key_id, last_seen_at)
            VALUES (${w.id}, ${w.environmentId}, ${w.workspaceId}, ${w.label}, ${w.tokenHash},
                    ${w.registrationKeyId}, ${w.now}::timestamptz)
            RETURNING ${columnsAt(w.now)}`
    })

    const insert = (worker: Omit<typeof NewWorker.Type, "now">): Effect.Effect<Worker> =>
      Effect.flatMap(nowIso, (now) => inserted({ now, ...worker })).pipe(Effect.orDie)

    const inWorkspace = SqlSchema.findOne({
      Request: Schema.Struct({ now: Schema.String, workspaceId: Schema.String, workerId: Schema.String }),
      Result: WorkerRow,
      execute: ({ now, workerId, workspaceId }) =>
        sql`SELECT ${columnsAt(now)} FROM workers w
            WHERE w.id = ${workerId} AND w.workspace_id = ${workspaceId} AND w.revoked_at IS NULL`
    })

    /** A worker of the workspace that is not revoked (a revoked one can no longer be changed). */
    const findInWorkspace = (workspaceId: string, workerId: string): Effect.Effect<Option.Option<Worker>> =>
      Effect.flatMap(nowIso, (now) => inWorkspace({ now, workspaceId, workerId })).pipe(Effect.orDie)

    const updated = SqlSchema.findOne({
      Request: Schema.Struct({
        now: Schema.String,
        workerId: Schema.String,
        label: Schema.NullOr(Schema.String),
        draining: Schema.NullOr(Schema.Boolean)
      }),
      Result: WorkerRow,
      execute: ({ draining, label, now, workerId }) =>
        sql`UPDATE workers AS w SET label = COALESCE(${label}::text, w.label),
              draining = COALESCE(${draining}::bool, w.draining)
            WHERE w.id = ${workerId} AND w.revoked_at IS NULL
            RETURNING ${columnsAt(now)}`
    })

    /** Sets what is given; None when the worker is gone or revoked meanwhile. */
    const update = (
      workerId: string,
      change: { readonly label?: string | undefined; readonly draining?: boolean | undefined }
    ): Effect.Effect<Option.Option<Worker>> =>
      Effect.flatMap(nowIso, (now) => updated({ now, workerId, label: change.label ?? null, draining: change.draining ?? null })).pipe(
        Effect.orDie
      )

    const revoked = SqlSchema.findOne({
      Request: Schema.Struct({ now: Schema.String, workerId: Schema.String }),
      Result: WorkerRow,
      execute: ({ now, workerId }) =>
        sql`UPDATE workers AS w SET revoked_at = now()
            WHERE w.id = ${workerId} AND w.revoked_at IS NULL
            RETURNING ${columnsAt(now)}`
    })

    /**
     * Marks the worker revoked; None when it is gone or already revoked (of
     * two concurrent revokes, one sees the row). From this commit on its
     * token is refused by the statement that verifies it.
     */
    const revoke = (workerId: string): Effect.Effect<Option.Option<Worker>> =>
      Effect.flatMap(nowIso, (now) => revoked({ now, workerId })).pipe(Effect.orDie)

    const ListRequest = Schema.Struct({
      now: Schema.String,
      status: Schema.optional(Status),
      after: Schema.optional(Schema.String),
      limit: Schema.Number
    })

    const environmentPage = SqlSchema.findAll({
      Request: Schema.Struct({ ...ListRequest.fields, environmentId: Schema.String }),
      Result: WorkerRow,
      execute: ({ environmentId, now, ...options }) =>
        sql`SELECT ${columnsAt(now)} FROM workers w
            WHERE ${sql.and([sql`w.environment_id = ${environmentId}`, ...filters(options, now)])}
            ORDER BY w.id DESC LIMIT ${options.limit + 1}`
    })

    /** Newest first, `limit + 1` rows. */
    const listEnvironment = (environmentId: string, options: ListOptions): Effect.Effect<ReadonlyArray<Worker>> =>
      Effect.flatMap(nowIso, (now) => environmentPage({ now, environmentId, ...options })).pipe(
        Effect.orDie,
        Effect.withSpan("WorkersRepo.listEnvironment")
      )

    const workspacePage = SqlSchema.findAll({
      Request: Schema.Struct({ ...ListRequest.fields, workspaceId: Schema.String, userId: Schema.String }),
      Result: WorkerRow,
      execute: ({ now, userId, workspaceId, ...options }) =>
        sql`SELECT ${columnsAt(now)} FROM workers w
            JOIN members m ON m.environment_id = w.environment_id AND m.user_id = ${userId}
            WHERE ${sql.and([sql`w.workspace_id = ${workspaceId}`, ...filters(options, now)])}
            ORDER BY w.id DESC LIMIT ${options.limit + 1}`
    })

    /** The workers of the workspace's environments where the user is a member (any role is viewer+). */
    const listWorkspaceForUser = (
      workspaceId: string,
      userId: string,
      options: ListOptions
    ): Effect.Effect<ReadonlyArray<Worker>> =>
      Effect.flatMap(nowIso, (now) => workspacePage({ now, workspaceId, userId, ...options })).pipe(
        Effect.orDie,
        Effect.withSpan("WorkersRepo.listWorkspace")
      )

    const seesWorkspace = SqlSchema.single({
      Request: Schema.Struct({ workspaceId: Schema.String, userId: Schema.String }),
      Result: Schema.Struct({ visible: Schema.Boolean }),
      execute: ({ userId, workspaceId }) =>
        sql`SELECT EXISTS (SELECT 1 FROM workspaces WHERE id = ${workspaceId} AND owner_id = ${userId})
                OR EXISTS (SELECT 1 FROM members m JOIN environments e ON e.id = m.environment_id
                           WHERE e.workspace_id = ${workspaceId} AND m.user_id = ${userId}) AS visible`
    })

    /** The user owns the workspace or is a member of one of its environments. */
    const userSeesWorkspace = (workspaceId: string, userId: string): Effect.Effect<boolean> =>
      seesWorkspace({ workspaceId, userId }).pipe(Effect.map((row) => row.visible), Effect.orDie)

    const workspaceOf = SqlSchema.findOne({
      Request: Schema.String,
      Result: Schema.Struct({ workspace_id: Schema.String }),
      execute: (environmentId) => sql`SELECT workspace_id FROM environments WHERE id = ${environmentId}`
    })

    const workspaceOfEnvironment = (environmentId: string): Effect.Effect<Option.Option<string>> =>
      workspaceOf(environmentId).pipe(Effect.map(Option.map((row) => row.workspace_id)), Effect.orDie)

    return {
      consumeRegistrationToken,
      insert,
      findInWorkspace,
      update,
      revoke,
      listEnvironment,
      listWorkspaceForUser,
      userSeesWorkspace,
      workspaceOfEnvironment
    } as const
  })
}) {}
