import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { AppConfig } from "../Config/AppConfig.js"
import { canonical } from "../Domain/Decimal.js"
import { NotFound } from "../Domain/Errors.js"
import { Policy } from "../Tenancy/Policy.js"
import { isUuid } from "../Triggers/TriggersRepo.js"
import { Overview } from "./Api.js"

interface OverviewRow {
  readonly online_workers: number
  readonly todays_runs: number
  readonly success_rate: string | null
  readonly month_spend: string
}

/**
 * The dashboard overview, computed in one SQL statement against the
 * database's clock: the day and month boundaries are UTC whatever the
 * session time zone, and `numeric` sums money exactly ("0.1" + "0.2" = "0.3").
 */
export class Dashboard extends Effect.Service<Dashboard>()("Dashboard/Dashboard", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const policy = yield* Policy
    const config = yield* AppConfig

    const overview = Effect.fn("Dashboard.overview")(function*(environmentId: string) {
      if (!isUuid(environmentId)) return yield* Effect.fail(NotFound.of("environment"))
      yield* policy.requireRole(environmentId, "viewer")
      const rows = yield* sql<OverviewRow>`
        WITH bounds AS (
          SELECT date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS day_start,
                 date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS month_start
        ), today AS (
          SELECT r.status FROM runs r, bounds b
          WHERE r.environment_id = ${environmentId} AND r.created_at >= b.day_start
        )
        SELECT
          (SELECT count(*)::int FROM workers
           WHERE environment_id = ${environmentId}
             AND last_seen_at > now() - make_interval(secs => ${config.workerOfflineAfterSeconds})) AS online_workers,
          (SELECT count(*)::int FROM today) AS todays_runs,
          (SELECT round(100.0 * count(*) FILTER (WHERE status = 'succeeded')
                   / NULLIF(count(*) FILTER (WHERE status IN ('succeeded', 'failed', 'timed_out')), 0), 1)::text
           FROM today) AS success_rate,
          (SELECT COALESCE(sum(r.cost_usd), 0)::text FROM runs r, bounds b
           WHERE r.environment_id = ${environmentId} AND r.ended_at >= b.month_start) AS month_spend`.pipe(Effect.orDie)
      const row = rows[0]!
      return new Overview({
        onlineWorkers: row.online_workers,
        todaysRuns: row.todays_runs,
        successRatePct: row.success_rate === null ? null : Number(row.success_rate),
        monthTokenSpendUsd: canonical(row.month_spend)
      })
    }, (effect, environmentId) => Effect.annotateLogs(effect, { environmentId }))

    return { overview } as const
  }),
  dependencies: [Policy.Default]
}) {}
