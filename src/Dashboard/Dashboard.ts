import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Tuning } from "../Config/Tuning.js"
import { nowIso } from "../Db/Time.js"
import { workerOnline } from "../RunStore/Placement.js"
import { canonical } from "../Contract/Domain/Decimal.js"
import { rowsAreValid } from "../Db/Rows.js"
import { Policy } from "../Tenancy/Policy.js"
import { Overview } from "../Contract/DashboardApi.js"

/**
 * The overview statement's one row, decoded into the API's `Overview`: the
 * rate comes as text (numeric), the spend as exact `numeric` text.
 */
const OverviewRow = Schema.Struct({
  online_workers: Schema.Number,
  todays_runs: Schema.Number,
  todays_expired_runs: Schema.Number,
  success_rate: Schema.NullOr(Schema.NumberFromString),
  month_spend: Schema.String
}).pipe(
  Schema.transform(Schema.instanceOf(Overview), {
    strict: true,
    decode: (row) =>
      new Overview({
        onlineWorkers: row.online_workers,
        todaysRuns: row.todays_runs,
        todaysExpiredRuns: row.todays_expired_runs,
        successRatePct: row.success_rate,
        monthTokenSpendUsd: canonical(row.month_spend)
      }, rowsAreValid),
    encode: (overview) => ({
      online_workers: overview.onlineWorkers,
      todays_runs: overview.todaysRuns,
      todays_expired_runs: overview.todaysExpiredRuns,
      success_rate: overview.successRatePct,
      month_spend: overview.monthTokenSpendUsd
    })
  })
)

/**
 * The dashboard overview, computed in one SQL statement against the
 * database's clock: the day and month boundaries are UTC whatever the
 * session time zone, and `numeric` sums money exactly ("0.1" + "0.2" = "0.3").
 *
 * It reads no more than a day or so of runs however long the history
 * (docs/benchmarks.md, "History at scale"): today's figures come from the
 * `runs_created` index alone, and the month's spend is the stored totals of
 * its closed days plus the runs that ended since. A day is closed an hour
 * after it ends (a run is stamped with its end before its statement commits;
 * an hour is far beyond that and any clock drift between instances); its
 * total is computed by the first overview that needs it and kept in
 * `run_daily_totals` (two instances computing it at once store the same
 * figure, and the second insert does nothing). A closed day's total never
 * changes afterwards: ended runs are never updated, and retention deleting
 * old runs does not take back money that was spent.
 */
export class Dashboard extends Effect.Service<Dashboard>()("Dashboard/Dashboard", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const policy = yield* Policy
    const config = yield* Tuning

    // Bounds are UTC wall-clock `timestamp`s (day arithmetic on them knows no
    // time zone); `AT TIME ZONE 'UTC'` turns one back into an instant.
    const figures = SqlSchema.single({
      Request: Schema.Struct({ environmentId: Schema.String, now: Schema.String }),
      Result: OverviewRow,
      execute: ({ environmentId, now }) =>
        sql`
        WITH bounds AS (
          SELECT date_trunc('day', now() AT TIME ZONE 'UTC') AS day_start,
                 date_trunc('month', now() AT TIME ZONE 'UTC') AS month_start,
                 date_trunc('day', (now() - interval '1 hour') AT TIME ZONE 'UTC') AS open_from
        ), closed AS (
          SELECT d::date AS day FROM bounds b,
            generate_series(b.month_start, b.open_from - interval '1 day', interval '1 day') AS d
        ), stored AS (
          SELECT t.day, t.cost_usd FROM run_daily_totals t JOIN closed c ON c.day = t.day
          WHERE t.environment_id = ${environmentId}
        ), computed AS MATERIALIZED (
          SELECT c.day, (
            SELECT COALESCE(sum(r.cost_usd), 0) FROM runs r
            WHERE r.environment_id = ${environmentId}
              AND r.ended_at >= c.day::timestamp AT TIME ZONE 'UTC'
              AND r.ended_at < (c.day + 1)::timestamp AT TIME ZONE 'UTC') AS cost_usd
          FROM closed c WHERE NOT EXISTS (SELECT 1 FROM stored s WHERE s.day = c.day)
        ), kept AS (
          INSERT INTO run_daily_totals (environment_id, day, cost_usd)
          SELECT ${environmentId}, day, cost_usd FROM computed
          ON CONFLICT DO NOTHING
        ), today AS (
          SELECT r.outcome FROM runs r, bounds b
          WHERE r.environment_id = ${environmentId} AND r.created_at >= b.day_start AT TIME ZONE 'UTC'
        )
        SELECT
          (SELECT count(*)::int FROM workers w
           WHERE w.environment_id = ${environmentId} AND w.revoked_at IS NULL
             AND ${workerOnline(sql, now, config.workerOfflineAfterSeconds)}) AS online_workers,
          (SELECT count(*)::int FROM today) AS todays_runs,
          (SELECT count(*)::int FROM today WHERE outcome = 'expired') AS todays_expired_runs,
          (SELECT round(100.0 * count(*) FILTER (WHERE outcome = 'succeeded')
                   / NULLIF(count(*) FILTER (WHERE outcome IN ('succeeded', 'failed', 'timed_out', 'expired')), 0), 1)::text
           FROM today) AS success_rate,
          ((SELECT COALESCE(sum(cost_usd), 0) FROM stored)
            + (SELECT COALESCE(sum(cost_usd), 0) FROM computed)
            + (SELECT COALESCE(sum(r.cost_usd), 0) FROM runs r, bounds b
               WHERE r.environment_id = ${environmentId}
                 AND r.ended_at >= GREATEST(b.month_start, b.open_from) AT TIME ZONE 'UTC'))::text AS month_spend`
    })

    const overview = Effect.fn("Dashboard.overview")(function*(environmentId: string) {
      yield* policy.requireRole(environmentId, "viewer")
      return yield* Effect.orDie(figures({ environmentId, now: yield* nowIso }))
    }, (effect, environmentId) => Effect.annotateLogs(effect, { environmentId }))

    return { overview } as const
  }),
  dependencies: [Policy.Default]
}) {}
