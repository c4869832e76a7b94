import * as Effect from "effect/Effect"
import * as Prom from "prom-client"
import type { Series } from "./Series.js"

/**
 * The `process_*` and `nodejs_*` series every Node service exposes (CPU
 * seconds, resident memory, heap and heap spaces, event-loop lag, open file
 * descriptors, GC pauses, active handles), from `prom-client`'s
 * `collectDefaultMetrics`: their names, units, help texts and Linux
 * `/proc` readings are the ones Prometheus users' dashboards and alerts
 * already expect, so they are not written here. They live in a registry of
 * their own, read at scrape time and turned into `Series` beside Effect's
 * metrics, so one exposition (and one IPC message per process, see
 * `ProcessMetrics`) carries both.
 */
const registry = new Prom.Registry()
let collecting = false

/**
 * The event-loop delay monitor's sampling interval (ms). prom-client's
 * default, 10 ms, is a timer waking the process 100 times a second: measured
 * at 7 ms of CPU a second on its own (100 ms: 1.7 ms/s; 1 s: 0.2 ms/s), as
 * much as all the rest of an idle service's work. Once a second, a stall of a
 * second or more is always seen and its length measured (it delays the sample
 * that spans it); a shorter one is seen in proportion to its length, which is
 * what the lag percentiles are for.
 */
export const eventLoopSampleMillis = 1000

const startNow = (): void => {
  if (collecting) return
  collecting = true
  Prom.collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: eventLoopSampleMillis })
}

/**
 * Starts the collectors (the event-loop delay monitor, the GC observer) once
 * per process. Call it when the process starts: CPU seconds count from here,
 * and the lag figures need samples before the first scrape.
 */
export const start: Effect.Effect<void> = Effect.sync(startNow)

type Sample = Prom.MetricObjectWithValues<Prom.MetricValue<string>>["values"][number] & {
  readonly metricName?: string
}

const numeric = (value: string | number): number =>
  value === "+Inf" ? Infinity : value === "-Inf" ? -Infinity : Number(value)

const tagsOf = (labels: Partial<Record<string, string | number>>, extra: ReadonlyArray<readonly [string, string]>) =>
  [...Object.entries(labels).filter(([k, v]) => k !== "le" && k !== "quantile" && v !== undefined).map(([k, v]) => [k, String(v)] as const), ...extra]

/** prom-client's JSON for one metric as series (a histogram's `_bucket`/`_sum`/`_count` samples regrouped). */
const toSeries = (
  metric: Prom.MetricObjectWithValues<Prom.MetricValue<string>>,
  extra: ReadonlyArray<readonly [string, string]>
): Array<Series> => {
  const help = metric.help
  const name = metric.name
  const values = metric.values as ReadonlyArray<Sample>
  // `type` is the exposition's word ("counter"); prom-client's MetricType enum exists only in its typings.
  const type = String(metric.type)
  if (type === "counter" || type === "gauge") {
    const kind = type
    return values.map((v) => ({ name, help, kind, tags: tagsOf(v.labels, extra), value: v.value }))
  }
  if (type === "histogram") {
    const groups = new Map<string, { tags: Array<readonly [string, string]>; buckets: Array<readonly [number, number]>; count: number; sum: number }>()
    for (const v of values) {
      const tags = tagsOf(v.labels, extra)
      const key = JSON.stringify(tags)
      let group = groups.get(key)
      if (group === undefined) {
        group = { tags, buckets: [], count: 0, sum: 0 }
        groups.set(key, group)
      }
      if (v.metricName === `${name}_bucket`) group.buckets.push([numeric(v.labels.le ?? "+Inf"), v.value])
      else if (v.metricName === `${name}_sum`) group.sum = v.value
      else if (v.metricName === `${name}_count`) group.count = v.value
    }
    return [...groups.values()].map((g) => ({ name, help, kind: "histogram", ...g }))
  }
  // collectDefaultMetrics makes no summaries; one would need quantiles merged across processes, which do not add up.
  return []
}

/**
 * This process's Node.js and process series, started on first use. `label`
 * names the process when several serve one instance (`process="1"`,
 * `process="primary"`): resident memory or event-loop lag of different
 * processes must not be added up into one number that no process has.
 */
export const series = (label?: string): Effect.Effect<Array<Series>> =>
  Effect.promise(async () => {
    startNow()
    const extra: ReadonlyArray<readonly [string, string]> = label === undefined ? [] : [["process", label]]
    const metrics = await registry.getMetricsAsJSON()
    return metrics.flatMap((metric) => toSeries(metric, extra))
  })
