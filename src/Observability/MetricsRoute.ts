import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { timingSafeEqual } from "node:crypto"
import * as PoolStats from "../Db/PoolStats.js"
import * as Metrics from "./Metrics.js"
import * as NodeMetrics from "./NodeMetrics.js"
import * as ProcessMetrics from "./ProcessMetrics.js"
import * as Prometheus from "./Prometheus.js"
import * as Series from "./Series.js"

/**
 * How many runs this process supervises right now, read at each scrape. The
 * composition provides it from the engine (`Supervisor.size`), so
 * observability imports nothing of the engine.
 */
export class SupervisedRuns extends Context.Tag("Observability/SupervisedRuns")<SupervisedRuns, Effect.Effect<number>>() {}

/**
 * Queued runs by environment and wait reason, read at each scrape (the
 * database's figure). The composition provides it from the engine's wait
 * reasons (`RunStore/Placement.waitingByReason`).
 */
export class WaitingRuns extends Context.Tag("Observability/WaitingRuns")<
  WaitingRuns,
  Effect.Effect<ReadonlyArray<{ readonly environment_id: string; readonly reason: string; readonly n: number }>>
>() {}

const metricsToken = Config.redacted("METRICS_TOKEN").pipe(
  Config.withDescription("bearer token GET /metrics requires; unset = no auth"),
  Config.option,
  Config.map(Option.filter((token) => Redacted.value(token).length > 0))
)

const sameToken = (given: string, expected: string) => {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

const unauthorized = HttpServerResponse.unsafeJson({ error: "authentication required" }, {
  status: 401,
  headers: { "www-authenticate": "Bearer" }
})

/**
 * The gauges read at scrape time: queue depth and active runs per
 * environment (from the database: the same figures on every instance and
 * every process), runs this process supervises, its connection pool. A
 * label set seen at an earlier scrape and absent now is set to 0, so an
 * emptied queue reads 0.
 */
const collector = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const supervised = yield* SupervisedRuns
  const waiting = yield* WaitingRuns
  let seen = new Set<string>()
  // The first half follows runs_open, the second runs_open_by_worker. Every
  // environment has a queue depth, 0 included, so a graph of it has no gaps.
  const counts = SqlSchema.findAll({
    Request: Schema.Void,
    Result: Schema.Struct({ environment_id: Schema.String, status: Schema.String, n: Schema.Number }),
    execute: () =>
      sql`
      SELECT e.id AS environment_id, 'queued' AS status, count(r.id)::int AS n
      FROM environments e LEFT JOIN runs r ON r.environment_id = e.id AND r.worker_id IS NULL AND r.ended_at IS NULL
      GROUP BY e.id
      UNION ALL
      SELECT environment_id, status, count(*)::int AS n FROM runs
      WHERE worker_id IS NOT NULL AND ended_at IS NULL GROUP BY environment_id, status`
  })
  const database = Effect.gen(function*() {
    const rows = yield* Effect.orDie(counts(undefined))
    const now = new Set<string>()
    for (const row of rows) {
      now.add(`${row.environment_id}\u0000${row.status}`)
      if (row.status === "queued") Metrics.record.queued(row.environment_id, row.n)
      else Metrics.record.active(row.environment_id, row.status, row.n)
    }
    for (const row of yield* waiting) {
      now.add(`${row.environment_id}\u0000wait:${row.reason}`)
      Metrics.record.waiting(row.environment_id, row.reason, row.n)
    }
    for (const key of seen) {
      if (now.has(key)) continue
      const [environmentId, status] = key.split("\u0000") as [string, string]
      if (status === "queued") Metrics.record.queued(environmentId, 0)
      else if (status.startsWith("wait:")) Metrics.record.waiting(environmentId, status.slice(5), 0)
      else Metrics.record.active(environmentId, status, 0)
    }
    seen = now
  })
  const local = Effect.gen(function*() {
    Metrics.record.supervised(yield* supervised)
    const pool = PoolStats.use()
    if (pool !== undefined) {
      Metrics.record.dbPool("busy", pool.busy)
      Metrics.record.dbPool("idle", pool.idle)
      Metrics.record.dbPool("waiting", pool.waiting)
      Metrics.record.dbPool("max", pool.max)
    }
  })
  return { database, local }
})

/**
 * This process's series: Effect's registry and the Node.js/process series;
 * without the database-wide gauges when another process answers the scrape.
 */
const snapshot = (withDatabaseGauges: boolean) =>
  Effect.zipWith(Metric.snapshot, NodeMetrics.series(ProcessMetrics.processLabel()), (pairs, node) => {
    const series = [...Series.fromPairs(pairs), ...node]
    return withDatabaseGauges ? series : series.filter((one) => !Metrics.databaseWide.has(one.name))
  })

/**
 * `GET /metrics` (and `/api/v1/metrics`): the Prometheus exposition, behind
 * `Authorization: Bearer <METRICS_TOKEN>` when that is set. With
 * `METRICS_ENABLED=false` nothing is recorded and the route answers 404.
 */
export const layer = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    if (!Metrics.isEnabled()) return
    yield* NodeMetrics.start
    const token = yield* metricsToken
    const collect = yield* collector
    yield* ProcessMetrics.answer(Effect.zipRight(collect.local, snapshot(false)))
    const scrape = Effect.gen(function*() {
      if (Option.isSome(token)) {
        const request = yield* HttpServerRequest.HttpServerRequest
        const header = request.headers.authorization ?? ""
        const given = header.toLowerCase().startsWith("bearer ") ? header.slice(7).trim() : ""
        if (!sameToken(given, Redacted.value(token.value))) return unauthorized
      }
      yield* collect.database
      yield* collect.local
      const own = yield* snapshot(true)
      // Several processes (WEB_CONCURRENCY): the figures of the whole service, from any of them.
      const others = yield* ProcessMetrics.others(own)
      const text = Prometheus.render(others.length === 0 ? own : Series.merge([own, ...others]))
      return HttpServerResponse.text(text, {
        contentType: Prometheus.contentType,
        headers: { "cache-control": "no-store" }
      })
    })
    yield* router.get("/metrics", scrape)
    yield* router.get("/api/v1/metrics", scrape)
  })
)
