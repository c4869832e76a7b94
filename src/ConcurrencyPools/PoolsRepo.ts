import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import type { ConcurrencyPool } from "../Contract/ConcurrencyPoolsApi.js"

interface PoolRow {
  readonly id: string
  readonly environment_id: string
  readonly name: string
  readonly limit: number
  readonly in_use: number
  readonly triggers: number
  readonly created_at: Date
  readonly updated_at: Date
}

const toPool = (row: PoolRow): ConcurrencyPool => ({
  id: row.id,
  environmentId: row.environment_id,
  name: row.name,
  limit: row.limit,
  inUse: Number(row.in_use),
  triggers: Number(row.triggers),
  createdAt: row.created_at,
  updatedAt: row.updated_at
})

/**
 * The `concurrency_pools` table. Each read answers the pool with its places
 * in use (runs of its live triggers holding a place: `runs_placed_limited`)
 * and how many live triggers join it.
 */
export class PoolsRepo extends Effect.Service<PoolsRepo>()("ConcurrencyPools/Repo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const columns = sql`p.id, p.environment_id, p.name, p."limit", p.created_at, p.updated_at,
      (SELECT count(*)::int FROM triggers t JOIN runs r ON r.trigger_id = t.id
        AND r.worker_id IS NOT NULL AND r.ended_at IS NULL AND r.flow_limited
        WHERE t.concurrency_pool_id = p.id AND t.deleted_at IS NULL) AS in_use,
      (SELECT count(*)::int FROM triggers t WHERE t.concurrency_pool_id = p.id AND t.deleted_at IS NULL) AS triggers`

    const one = (rows: ReadonlyArray<PoolRow>) => rows[0] === undefined ? undefined : toPool(rows[0])

    /** The pool of the environment; undefined when there is none with that id. */
    const find = (environmentId: string, id: string): Effect.Effect<ConcurrencyPool | undefined> =>
      sql<PoolRow>`SELECT ${columns} FROM concurrency_pools p WHERE p.id = ${id} AND p.environment_id = ${environmentId}`.pipe(
        Effect.map(one),
        Effect.orDie
      )

    /** The pool of the environment named `name`; undefined when none. */
    const findByName = (environmentId: string, name: string): Effect.Effect<ConcurrencyPool | undefined> =>
      sql<PoolRow>`SELECT ${columns} FROM concurrency_pools p WHERE p.environment_id = ${environmentId} AND p.name = ${name}`.pipe(
        Effect.map(one),
        Effect.orDie
      )

    /** Newest first, `limit + 1` rows (the caller pages). */
    const list = (environmentId: string, after: string | undefined, limit: number): Effect.Effect<ReadonlyArray<ConcurrencyPool>> =>
      sql<PoolRow>`SELECT ${columns} FROM concurrency_pools p
        WHERE p.environment_id = ${environmentId} ${after === undefined ? sql`` : sql`AND p.id < ${after}`}
        ORDER BY p.id DESC LIMIT ${limit + 1}`.pipe(Effect.map((rows) => rows.map(toPool)), Effect.orDie)

    /** A new pool; undefined when the name is taken in the environment (nothing stored). */
    const insert = (id: string, environmentId: string, name: string, limit: number): Effect.Effect<ConcurrencyPool | undefined> =>
      sql<PoolRow>`WITH p AS (
          INSERT INTO concurrency_pools (id, environment_id, name, "limit") VALUES (${id}, ${environmentId}, ${name}, ${limit})
          ON CONFLICT (environment_id, name) DO NOTHING RETURNING *)
        SELECT ${columns} FROM p`.pipe(Effect.map(one), Effect.orDie)

    /**
     * Renames and/or re-limits the pool: "missing" when there is no such pool,
     * "taken" when another pool of the environment has the name.
     */
    const update = (
      environmentId: string,
      id: string,
      changes: { readonly name?: string | undefined; readonly limit?: number | undefined }
    ): Effect.Effect<ConcurrencyPool | "missing" | "taken"> =>
      Effect.gen(function*() {
        const rows = yield* sql<PoolRow>`WITH p AS (
            UPDATE concurrency_pools SET name = COALESCE(${changes.name ?? null}, name),
              "limit" = COALESCE(${changes.limit ?? null}::int, "limit"), updated_at = now()
            WHERE id = ${id} AND environment_id = ${environmentId}
              AND NOT EXISTS (SELECT 1 FROM concurrency_pools o WHERE o.environment_id = ${environmentId}
                AND o.name = ${changes.name ?? null} AND o.id <> ${id})
            RETURNING *)
          SELECT ${columns} FROM p`
        if (rows[0] !== undefined) return toPool(rows[0])
        return (yield* find(environmentId, id)) === undefined ? "missing" as const : "taken" as const
      }).pipe(Effect.orDie)

    /**
     * Deletes the pool unless a live trigger joins it (soft-deleted triggers
     * let go of it: the foreign key sets theirs to null). Answers "deleted",
     * "missing" or the number of live triggers that hold it.
     */
    const remove = (environmentId: string, id: string): Effect.Effect<"deleted" | "missing" | { readonly inUseBy: number }> =>
      Effect.gen(function*() {
        // Locks the pool row first: a trigger joining it meanwhile (a
        // key-share lock through the foreign key) either commits before and
        // is counted, or waits and then finds the pool gone.
        const [pool] = yield* sql<{ id: string }>`SELECT id FROM concurrency_pools
          WHERE id = ${id} AND environment_id = ${environmentId} FOR UPDATE`
        if (pool === undefined) return "missing" as const
        const [used] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM triggers
          WHERE concurrency_pool_id = ${id} AND deleted_at IS NULL`
        if ((used?.n ?? 0) > 0) return { inUseBy: Number(used!.n) }
        yield* sql`DELETE FROM concurrency_pools WHERE id = ${id}`
        return "deleted" as const
      }).pipe(Effect.orDie)

    return { find, findByName, list, insert, update, remove } as const
  })
}) {}
