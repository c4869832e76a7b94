import * as Metric from "effect/Metric"
import * as MetricBoundaries from "effect/MetricBoundaries"
import * as MetricLabel from "effect/MetricLabel"

/**
 * The service's metrics, on Effect's `Metric` API (one global registry: the
 * Prometheus exposition and the OTLP exporter both read it). Labels are a
 * bounded set: environment ids, run and attempt outcomes, route templates,
 * never run ids or raw paths. Durations are in seconds, as Prometheus expects.
 */

/**
 * An update with labels. Effect caches a metric's hook by the identity of
 * the label array, so each label combination gets one array, made once:
 * an update is then a map lookup and an increment, cheap on the hot paths.
 */
const labelled = <In>(metric: Metric.Metric<any, In, any>, names: ReadonlyArray<string>) => {
  const cache = new Map<string, ReadonlyArray<MetricLabel.MetricLabel>>()
  return (values: ReadonlyArray<string>, input: In): void => {
    const key = values.join("\u0000")
    let labels = cache.get(key)
    if (labels === undefined) {
      labels = names.map((name, i) => MetricLabel.make(name, values[i] ?? ""))
      cache.set(key, labels)
    }
    metric.unsafeUpdate(input, labels)
  }
}

const seconds = (values: ReadonlyArray<number>) => MetricBoundaries.fromIterable(values)

const runsRequested = Metric.counter("pts_runs_requested_total", {
  description: "Runs created by requests (API, MCP, schedules; automatic retries not included)",
  incremental: true
})
const runsEnded = Metric.counter("pts_runs_ended_total", {
  description: "Runs that reached a terminal status, by environment and status",
  incremental: true
})
// Flow control II names this family for runs by their end (`pts_runs_total{status="expired"}`):
// the same count as `pts_runs_ended_total`, which earlier dashboards read, kept beside it.
const runsByEnd = Metric.counter("pts_runs_total", {
  description: "Runs by the terminal status they reached (succeeded, failed, timed_out, cancelled, expired), by environment",
  incremental: true
})
const runDuration = Metric.histogram(
  "pts_run_duration_seconds",
  seconds([0.1, 0.5, 1, 5, 15, 30, 60, 300, 900, 1800, 3600, 7200, 21600, 86400]),
  "Duration of ended runs (from start, or claim, to the end)"
)
const dispatchLatency = Metric.histogram(
  "pts_dispatch_latency_seconds",
  seconds([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300]),
  "From a run's request to its claim by a worker"
)
const webhookAttempts = Metric.counter("pts_webhook_attempts_total", {
  description: "Webhook delivery attempts by outcome (delivered, retryable, permanent)",
  incremental: true
})
const httpRequests = Metric.counter("pts_http_requests_total", {
  description: "HTTP requests by method, route template and status",
  incremental: true
})
const httpDuration = Metric.histogram(
  "pts_http_request_duration_seconds",
  seconds([0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60]),
  "HTTP request latency by method and route template (long-polls included)"
)

/** Scrape-time gauges: set from the database or this instance's state just before each exposition. */
export const gauges = {
  queued: Metric.gauge("pts_runs_queued", { description: "Runs waiting for a worker (queue depth), by environment" }),
  active: Metric.gauge("pts_runs_active", {
    description: "Runs with a worker, by environment and status (assigned, claimed, running)"
  }),
  waiting: Metric.gauge("pts_runs_waiting", {
    description: "Queued runs by environment and wait reason (the run object's waitReason: trigger_limit, key_limit, workers_full, ...)"
  }),
  supervised: Metric.gauge("pts_supervised_runs", {
    description: "Runs whose deadlines this instance supervises (all its processes; sum across instances)"
  }),
  dbPool: Metric.gauge("pts_db_pool_connections", {
    description: "Database connections of this instance (all its processes) by state (busy, idle, waiting for a connection, max)"
  })
}

/**
 * Gauges read from the database: every process of a start reads the same
 * figure, so a scrape reports the answering process's rather than a sum.
 */
export const databaseWide: ReadonlySet<string> = new Set(["pts_runs_queued", "pts_runs_active", "pts_runs_waiting"])

const setQueued = labelled(gauges.queued, ["environment"])
const setActive = labelled(gauges.active, ["environment", "status"])
const setWaiting = labelled(gauges.waiting, ["environment", "reason"])
const setDbPool = labelled(gauges.dbPool, ["state"])
const requested = labelled(runsRequested, ["environment"])
const ended = labelled(runsEnded, ["environment", "status"])
const byEnd = labelled(runsByEnd, ["environment", "status"])
const duration = labelled(runDuration, ["environment"])
const dispatch = labelled(dispatchLatency, ["environment"])
const attempts = labelled(webhookAttempts, ["outcome"])
const http = labelled(httpRequests, ["method", "route", "status"])
const httpLatency = labelled(httpDuration, ["method", "route"])

// Metrics can be turned off (METRICS_ENABLED=false) to measure what they cost; the
// registry is process-wide, so the switch is too.
let enabled = true
/** Turns recording on or off for the whole process (see `Observability/Config`). */
export const setEnabled = (on: boolean): void => {
  enabled = on
}
export const isEnabled = (): boolean => enabled

const when = <Args extends Array<any>>(f: (...args: Args) => void) => (...args: Args): void => {
  if (enabled) f(...args)
}

/** Synchronous recorders, called where the event happens (they cannot fail). */
export const record = {
  runsRequested: when((environmentId: string, n: number) => requested([environmentId], n)),
  runEnded: when((environmentId: string, status: string, durationMs: number | null) => {
    ended([environmentId, status], 1)
    byEnd([environmentId, status], 1)
    if (durationMs !== null) duration([environmentId], durationMs / 1000)
  }),
  dispatched: when((environmentId: string, latencyMs: number) => dispatch([environmentId], Math.max(0, latencyMs) / 1000)),
  webhookAttempt: when((outcome: "delivered" | "retryable" | "permanent") => attempts([outcome], 1)),
  http: when((method: string, route: string, status: number, durationMs: number) => {
    http([method, route, String(status)], 1)
    httpLatency([method, route], durationMs / 1000)
  }),
  queued: when((environmentId: string, n: number) => setQueued([environmentId], n)),
  active: when((environmentId: string, status: string, n: number) => setActive([environmentId, status], n)),
  waiting: when((environmentId: string, reason: string, n: number) => setWaiting([environmentId, reason], n)),
  supervised: when((n: number) => gauges.supervised.unsafeUpdate(n, [])),
  dbPool: when((state: "busy" | "idle" | "waiting" | "max", n: number) => setDbPool([state], n))
}
