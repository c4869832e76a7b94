import * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Tuning } from "../Config/Tuning.js"
import { nowIso } from "../Scheduler/Time.js"
import { workerOnline } from "../Runs/Placement.js"
import { Worker } from "./Api.js"
import { rowsAreValid } from "../Domain/Rows.js"

export interface WorkerRow {
  readonly id: string
  readonly environment_id: string
  readonly workspace_id: string
  readonly label: string
  readonly last_seen_at: Date
  readonly created_at: Date
  /** Seen within WORKER_OFFLINE_AFTER_SECONDS on the scheduler's clock (as placement decides it). */
  readonly online: boolean
  readonly draining: boolean
  readonly revoked_at: Date | null
}

export type WorkerStatus = Worker["status"]

export const toWorker = (row: WorkerRow): Worker =>
  new Worker({
    id: row.id,
    environmentId: row.environment_id,
    workspaceId: row.workspace_id,
    label: row.label,
    status: row.revoked_at !== null ? "revoked" : row.draining ? "draining" : row.online ? "online" : "offline",
    lastSeenAt: row.last_seen_at,
    createdAt: row.created_at
  }, rowsAreValid)

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
        (${workerOnline(sql, now, offlineAfter)}) AS online, w.draining, w.revoked_at`

    // The status `toWorker` derives, as SQL: revoked, else draining, else online or offline.
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

    /**
     * Consumes a `wrk_` registration token: one conditional UPDATE, so of two
     * concurrent registrations with one token exactly one sees the row.
     */
    const consumeRegistrationToken = (
      tokenHash: string
    ): Effect.Effect<Option.Option<{ id: string; environment_id: string; workspace_id: string }>> =>
      sql<{ id: string; environment_id: string; workspace_id: string }>`
        UPDATE api_keys k SET consumed_at = now()
        FROM environments e
        WHERE k.token_hash = ${tokenHash} AND k.prefix = 'wrk' AND k.consumed_at IS NULL AND e.id = k.environment_id
        RETURNING k.id, k.environment_id, e.workspace_id`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0])),
        Effect.orDie
      )

    const insert = (worker: {
      readonly id: string
      readonly environmentId: string
      readonly workspaceId: string
      readonly label: string
      readonly tokenHash: string
      readonly registrationKeyId: string
    }): Effect.Effect<WorkerRow> =>
      Effect.flatMap(nowIso, (now) =>
        sql<WorkerRow>`
        INSERT INTO workers AS w (id, environment_id, workspace_id, label, token_hash, registration_key_id, last_seen_at)
        VALUES (${worker.id}, ${worker.environmentId}, ${worker.workspaceId}, ${worker.label}, ${worker.tokenHash},
                ${worker.registrationKeyId}, ${now}::timestamptz)
        RETURNING ${columnsAt(now)}`).pipe(Effect.map((rows) => rows[0]!), Effect.orDie)

    /** A worker of the workspace that is not revoked (a revoked one can no longer be changed). */
    const findInWorkspace = (workspaceId: string, workerId: string): Effect.Effect<Option.Option<WorkerRow>> =>
      Effect.flatMap(nowIso, (now) =>
        sql<WorkerRow>`
        SELECT ${columnsAt(now)} FROM workers w
        WHERE w.id = ${workerId} AND w.workspace_id = ${workspaceId} AND w.revoked_at IS NULL`).pipe(
        Effect.map((rows) => Option.fromNullable(rows[0])),
        Effect.orDie
      )

    /** Sets what is given; None when the worker is gone or revoked meanwhile. */
    const update = (
      workerId: string,
      change: { readonly label?: string | undefined; readonly draining?: boolean | undefined }
    ): Effect.Effect<Option.Option<WorkerRow>> =>
      Effect.flatMap(nowIso, (now) =>
        sql<WorkerRow>`
        UPDATE workers AS w SET label = COALESCE(${change.label ?? null}::text, w.label),
          draining = COALESCE(${change.draining ?? null}::bool, w.draining)
        WHERE w.id = ${workerId} AND w.revoked_at IS NULL
        RETURNING ${columnsAt(now)}`).pipe(
        Effect.map((rows) => Option.fromNullable(rows[0])),
        Effect.orDie
      )

    /**
     * Marks the worker revoked; None when it is gone or already revoked (of
     * two concurrent revokes, one sees the row). From this commit on its
     * token is refused by the statement that verifies it.
     */
    const revoke = (workerId: string): Effect.Effect<Option.Option<WorkerRow>> =>
      Effect.flatMap(nowIso, (now) =>
        sql<WorkerRow>`
        UPDATE workers AS w SET revoked_at = now()
        WHERE w.id = ${workerId} AND w.revoked_at IS NULL
        RETURNING ${columnsAt(now)}`).pipe(
        Effect.map((rows) => Option.fromNullable(rows[0])),
        Effect.orDie
      )

    /** Newest first, `limit + 1` rows. */
    const listEnvironment = (environmentId: string, options: ListOptions): Effect.Effect<ReadonlyArray<WorkerRow>> =>
      Effect.flatMap(nowIso, (now) =>
        sql<WorkerRow>`
        SELECT ${columnsAt(now)} FROM workers w
        WHERE ${sql.and([sql`w.environment_id = ${environmentId}`, ...filters(options, now)])}
        ORDER BY w.id DESC LIMIT ${options.limit + 1}`).pipe(Effect.orDie, Effect.withSpan("WorkersRepo.listEnvironment"))

    /** The workers of the workspace's environments where the user is a member (any role is viewer+). */
    const listWorkspaceForUser = (
      workspaceId: string,
      userId: string,
      options: ListOptions
    ): Effect.Effect<ReadonlyArray<WorkerRow>> =>
      Effect.flatMap(nowIso, (now) =>
        sql<WorkerRow>`
        SELECT ${columnsAt(now)} FROM workers w
        JOIN members m ON m.environment_id = w.environment_id AND m.user_id = ${userId}
        WHERE ${sql.and([sql`w.workspace_id = ${workspaceId}`, ...filters(options, now)])}
        ORDER BY w.id DESC LIMIT ${options.limit + 1}`).pipe(Effect.orDie, Effect.withSpan("WorkersRepo.listWorkspace"))

    /** The user owns the workspace or is a member of one of its environments. */
    const userSeesWorkspace = (workspaceId: string, userId: string): Effect.Effect<boolean> =>
      sql<{ visible: boolean }>`
        SELECT EXISTS (SELECT 1 FROM workspaces WHERE id = ${workspaceId} AND owner_id = ${userId})
            OR EXISTS (SELECT 1 FROM members m JOIN environments e ON e.id = m.environment_id
                       WHERE e.workspace_id = ${workspaceId} AND m.user_id = ${userId}) AS visible`.pipe(
        Effect.map((rows) => rows[0]?.visible === true),
        Effect.orDie
      )

    const workspaceOfEnvironment = (environmentId: string): Effect.Effect<Option.Option<string>> =>
      sql<{ workspace_id: string }>`SELECT workspace_id FROM environments WHERE id = ${environmentId}`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]?.workspace_id)),
        Effect.orDie
      )

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
