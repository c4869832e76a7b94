import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { activeStatuses, type RunRow, type RunStatus } from "../Domain/Run.js"

/** The parts of a live (not deleted) trigger a run needs. */
export interface TriggerSnapshot {
  readonly id: string
  readonly environment_id: string
  readonly input: unknown
}

export interface RunFilter {
  readonly triggerId?: string | undefined
  readonly environmentId?: string | undefined
  readonly status?: RunStatus | undefined
  readonly from?: Date | undefined
  readonly to?: Date | undefined
  readonly workerId?: string | undefined
  /** Keyset: only ids below this one (the previous page's last). */
  readonly before?: string | undefined
  readonly limit: number
}

/** Runs as records for the API: a live trigger's snapshot and run listings (runs are created by `RunStore.createMany`). */
export class RunsRepo extends Effect.Service<RunsRepo>()("Runs/Repo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const findTrigger = (triggerId: string): Effect.Effect<TriggerSnapshot | undefined> =>
      sql<TriggerSnapshot>`
        SELECT id, environment_id, input FROM triggers WHERE id = ${triggerId} AND deleted_at IS NULL`.pipe(
        Effect.map((rows) => rows[0]),
        Effect.orDie
      )


    /**
     * `status = X` in words the indexes answer (migration 0007): a run is
     * active exactly while it has not ended, and a queued run has no worker
     * either; an ended run's status is its `outcome`. Without these the
     * planner walks the environment's history in id order looking for a
     * status that is rare there.
     */
    const statusFilter = (status: RunStatus) =>
      (activeStatuses as ReadonlyArray<string>).includes(status)
        ? [sql`ended_at IS NULL`, ...(status === "queued" ? [sql`worker_id IS NULL`] : []), sql`status = ${status}`]
        : [sql`outcome = ${status}`]

    const list = (filter: RunFilter): Effect.Effect<ReadonlyArray<RunRow>> =>
      sql<RunRow>`
        SELECT * FROM runs
        WHERE ${
        sql.and([
          ...(filter.triggerId !== undefined ? [sql`trigger_id = ${filter.triggerId}`] : []),
          ...(filter.environmentId !== undefined ? [sql`environment_id = ${filter.environmentId}`] : []),
          ...(filter.status !== undefined ? statusFilter(filter.status) : []),
          ...(filter.from !== undefined ? [sql`created_at >= ${filter.from.toISOString()}::timestamptz`] : []),
          ...(filter.to !== undefined ? [sql`created_at <= ${filter.to.toISOString()}::timestamptz`] : []),
          ...(filter.workerId !== undefined ? [sql`worker_id = ${filter.workerId}`] : []),
          ...(filter.before !== undefined ? [sql`id < ${filter.before}`] : [])
        ])
      }
        ORDER BY id DESC
        LIMIT ${filter.limit + 1}`.pipe(Effect.orDie, Effect.withSpan("RunsRepo.list"))

    return { findTrigger, list } as const
  })
}) {}
