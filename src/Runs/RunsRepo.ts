import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { activeStatuses, type RunRow, type RunStatus } from "../Contract/Domain/Run.js"
import { Tuning } from "../Config/Tuning.js"
import { nowIso } from "../Db/Time.js"
import { waitReasonJoin } from "../RunStore/Placement.js"

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
  /** Runs carrying this tag (of `environmentId`, which a tag filter needs). */
  readonly tag?: { readonly tag: string; readonly environmentId: string } | undefined
  /** Keyset: only ids below this one (the previous page's last). */
  readonly before?: string | undefined
  readonly limit: number
}

/** Runs as records for the API: a live trigger's snapshot and run listings (runs are created by `RunStore.createMany`). */
export class RunsRepo extends Effect.Service<RunsRepo>()("Runs/Repo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const tuning = yield* Tuning

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
        ? [sql`r.ended_at IS NULL`, ...(status === "queued" ? [sql`r.worker_id IS NULL`] : []), sql`r.status = ${status}`]
        : [sql`r.outcome = ${status}`]

    /** The page of runs, each queued one with its wait reason as of now (`waitReasonJoin`). */
    const list = (filter: RunFilter): Effect.Effect<ReadonlyArray<RunRow>> =>
      Effect.flatMap(nowIso, (now) => {
        const tag = filter.tag
        const conditions = sql.and([
          ...(filter.triggerId !== undefined ? [sql`r.trigger_id = ${filter.triggerId}`] : []),
          ...(filter.environmentId !== undefined ? [sql`r.environment_id = ${filter.environmentId}`] : []),
          ...(filter.status !== undefined ? statusFilter(filter.status) : []),
          ...(filter.from !== undefined ? [sql`r.created_at >= ${filter.from.toISOString()}::timestamptz`] : []),
          ...(filter.to !== undefined ? [sql`r.created_at <= ${filter.to.toISOString()}::timestamptz`] : []),
          ...(filter.workerId !== undefined ? [sql`r.worker_id = ${filter.workerId}`] : []),
          ...(filter.before !== undefined ? [sql`r.id < ${filter.before}`] : [])
        ])
        // By tag, the walk goes down `run_tags_listing` (the tag's runs in id order) and reads each run by its key:
        // a page costs the same however many runs the environment has and however rare the tag.
        const statement = tag === undefined
          ? sql<RunRow>`SELECT r.* FROM runs r WHERE ${conditions} ORDER BY r.id DESC LIMIT ${filter.limit + 1}`
          : sql<RunRow>`
            SELECT r.* FROM run_tags g JOIN runs r ON r.id = g.run_id
            WHERE g.environment_id = ${tag.environmentId} AND g.tag = ${tag.tag}
              ${filter.before !== undefined ? sql`AND g.run_id < ${filter.before}` : sql``}
              AND ${conditions}
            ORDER BY g.run_id DESC LIMIT ${filter.limit + 1}`
        return sql<RunRow>`SELECT r.*, wr.wait_reason, wr.wait_pool FROM (${statement}) r ${waitReasonJoin(sql, now, tuning)} ORDER BY r.id DESC`.pipe(
          Effect.orDie,
          Effect.withSpan("RunsRepo.list")
        )
      })

    return { findTrigger, list } as const
  })
}) {}
