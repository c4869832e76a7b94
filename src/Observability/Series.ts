import type * as MetricPair from "effect/MetricPair"
import * as MetricState from "effect/MetricState"
import * as Option from "effect/Option"

/**
 * One metric series as plain data: what the Prometheus exposition renders,
 * and what service processes send each other (structured-clone safe), so a
 * scrape of any process answers for all of them.
 */
export type Series =
  | Base & { readonly kind: "counter" | "gauge"; readonly value: number }
  | Base & {
    readonly kind: "histogram"
    readonly buckets: ReadonlyArray<readonly [number, number]>
    readonly count: number
    readonly sum: number
  }
  | Base & { readonly kind: "frequency"; readonly occurrences: ReadonlyArray<readonly [string, number]> }
  | Base & {
    readonly kind: "summary"
    readonly quantiles: ReadonlyArray<readonly [number, number]>
    readonly count: number
    readonly sum: number
  }

interface Base {
  readonly name: string
  readonly help: string | undefined
  readonly tags: ReadonlyArray<readonly [string, string]>
}

/**
 * Effect's own runtime metrics carry no description, and one of them,
 * `effect_fiber_active`, is kept as a counter that goes down when a fiber
 * ends: a gauge in Prometheus terms (and when processes are merged, a
 * process that ended must not leave its live fibers in the totals).
 */
const effectRuntime: Record<string, { readonly help: string; readonly gauge?: true }> = {
  effect_fiber_started: { help: "Fibers started by the Effect runtime since the process started" },
  effect_fiber_active: { help: "Fibers of the Effect runtime currently alive (started and not yet ended)", gauge: true },
  effect_fiber_successes: { help: "Fibers of the Effect runtime that ended with a success" },
  effect_fiber_failures: { help: "Fibers of the Effect runtime that ended with a failure or a defect" },
  effect_fiber_lifetimes: { help: "How long fibers of the Effect runtime lived, in milliseconds (label time_unit)" }
}

const toSeries = (pair: MetricPair.MetricPair.Untyped): Series | undefined => {
  const known = effectRuntime[pair.metricKey.name]
  const base: Base = {
    name: pair.metricKey.name,
    help: Option.getOrElse(pair.metricKey.description, () => known?.help),
    tags: pair.metricKey.tags.map((tag) => [tag.key, tag.value] as const)
  }
  const state = pair.metricState
  if (MetricState.isCounterState(state)) return { ...base, kind: known?.gauge ? "gauge" : "counter", value: Number(state.count) }
  if (MetricState.isGaugeState(state)) return { ...base, kind: "gauge", value: Number(state.value) }
  if (MetricState.isHistogramState(state)) {
    return { ...base, kind: "histogram", buckets: state.buckets, count: state.count, sum: state.sum }
  }
  if (MetricState.isFrequencyState(state)) return { ...base, kind: "frequency", occurrences: [...state.occurrences] }
  if (MetricState.isSummaryState(state)) {
    const quantiles = state.quantiles.map(([q, v]) => [q, Option.getOrElse(v, () => NaN)] as const)
    return { ...base, kind: "summary", quantiles, count: state.count, sum: state.sum }
  }
  return undefined
}

/** A registry snapshot (`Metric.snapshot`) as series. */
export const fromPairs = (pairs: ReadonlyArray<MetricPair.MetricPair.Untyped>): Array<Series> =>
  pairs.flatMap((pair) => toSeries(pair) ?? [])

/** Name and labels: series with the same key from different processes are one series of the service. */
export const keyOf = (series: Series): string =>
  `${series.name}{${series.tags.map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(",")}}`

const add = (a: Series, b: Series): Series => {
  if (a.kind === "counter" && b.kind === "counter") return { ...a, value: a.value + b.value }
  if (a.kind === "gauge" && b.kind === "gauge") return { ...a, value: a.value + b.value }
  if (a.kind === "histogram" && b.kind === "histogram") {
    // Every process declares the same boundaries; a bucket count is the sum of theirs.
    const others = new Map(b.buckets)
    return {
      ...a,
      buckets: a.buckets.map(([le, n]) => [le, n + (others.get(le) ?? 0)] as const),
      count: a.count + b.count,
      sum: a.sum + b.sum
    }
  }
  if (a.kind === "frequency" && b.kind === "frequency") {
    const total = new Map(a.occurrences)
    for (const [key, n] of b.occurrences) total.set(key, (total.get(key) ?? 0) + n)
    return { ...a, occurrences: [...total] }
  }
  // Quantiles of different processes do not add up: the first process's stand.
  return a
}

/**
 * The service's figures from each process's: counters, histograms and
 * frequencies add up; gauges too (each process reports what it holds: its
 * connections, the runs it supervises). Gauges read from the database are
 * the same everywhere: the caller leaves them out of all lists but one.
 */
export const merge = (lists: ReadonlyArray<ReadonlyArray<Series>>): Array<Series> => {
  const merged = new Map<string, Series>()
  for (const list of lists) {
    for (const series of list) {
      const key = keyOf(series)
      const found = merged.get(key)
      merged.set(key, found === undefined ? series : add(found, series))
    }
  }
  return [...merged.values()]
}

/** What a process that ended leaves behind: its counts (so the service's totals never go down), not its gauges. */
export const cumulative = (list: ReadonlyArray<Series>): Array<Series> =>
  list.filter((series) => series.kind === "counter" || series.kind === "histogram" || series.kind === "frequency")
