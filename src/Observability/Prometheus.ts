import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as Series from "./Series.js"

/**
 * Effect's metric registry in the Prometheus text exposition format (0.0.4).
 * Written here rather than through `@opentelemetry/exporter-prometheus`: that
 * path needs the OpenTelemetry metrics SDK as well, converts every scrape
 * through its data model and renames series (unit suffixes, `target_info`);
 * the registry's snapshot maps onto the format directly in a page of code.
 */
export const contentType = "text/plain; version=0.0.4; charset=utf-8"

const metricName = (name: string) => name.replace(/[^a-zA-Z0-9_:]/g, "_").replace(/^([0-9])/, "_$1")
const labelName = (name: string) => name.replace(/[^a-zA-Z0-9_]/g, "_").replace(/^([0-9])/, "_$1")
const escapeLabel = (value: string) => value.replace(/\\/g, "\\\\").replace(/"/g, "\\\"").replace(/\n/g, "\\n")
const escapeHelp = (value: string) => value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")

const formatValue = (value: number | bigint): string => {
  if (typeof value === "bigint") return value.toString()
  if (Number.isNaN(value)) return "NaN"
  if (value === Infinity) return "+Inf"
  if (value === -Infinity) return "-Inf"
  return String(value)
}

const labelsOf = (pairs: ReadonlyArray<readonly [string, string]>): string =>
  pairs.length === 0 ? "" : `{${pairs.map(([k, v]) => `${labelName(k)}="${escapeLabel(v)}"`).join(",")}}`

interface Family {
  type: "counter" | "gauge" | "histogram" | "summary"
  /** Absent when the metric has no description: no HELP line rather than one repeating the name. */
  help: string | undefined
  readonly lines: Array<string>
}

const labelled = (series: Series.Series) => `${series.name}${labelsOf(series.tags)}`

/** Renders series (one process's snapshot, or every process's merged; exported for tests). */
export const render = (series: ReadonlyArray<Series.Series>): string => {
  const families = new Map<string, Family>()
  const family = (name: string, type: Family["type"], help: string | undefined) => {
    let found = families.get(name)
    if (found === undefined) {
      found = { type, help, lines: [] }
      families.set(name, found)
    }
    return found
  }
  // Series in a stable order (by name, then labels), each histogram's buckets in increasing `le`.
  const sorted = [...series].sort((a, b) => labelled(a) < labelled(b) ? -1 : labelled(a) > labelled(b) ? 1 : 0)
  for (const one of sorted) {
    const name = metricName(one.name)
    const help = one.help
    const tags = one.tags
    switch (one.kind) {
      case "counter":
      case "gauge":
        family(name, one.kind, help).lines.push(`${name}${labelsOf(tags)} ${formatValue(one.value)}`)
        break
      case "histogram": {
        const lines = family(name, "histogram", help).lines
        for (const [boundary, count] of one.buckets) {
          lines.push(`${name}_bucket${labelsOf([...tags, ["le", formatValue(boundary)]])} ${count}`)
        }
        lines.push(`${name}_sum${labelsOf(tags)} ${formatValue(one.sum)}`)
        lines.push(`${name}_count${labelsOf(tags)} ${one.count}`)
        break
      }
      case "frequency": {
        // A frequency counts occurrences of each string: a counter labelled by it.
        const lines = family(name, "counter", help).lines
        for (const [key, count] of one.occurrences) lines.push(`${name}${labelsOf([...tags, ["key", key]])} ${count}`)
        break
      }
      case "summary": {
        const lines = family(name, "summary", help).lines
        for (const [quantile, value] of one.quantiles) {
          lines.push(`${name}${labelsOf([...tags, ["quantile", String(quantile)]])} ${formatValue(value)}`)
        }
        lines.push(`${name}_sum${labelsOf(tags)} ${formatValue(one.sum)}`)
        lines.push(`${name}_count${labelsOf(tags)} ${one.count}`)
        break
      }
    }
  }
  const out: Array<string> = []
  for (const name of [...families.keys()].sort()) {
    const { help, lines, type } = families.get(name)!
    if (help !== undefined) out.push(`# HELP ${name} ${escapeHelp(help)}`)
    out.push(`# TYPE ${name} ${type}`, ...lines)
  }
  return out.join("\n") + "\n"
}

/** The whole registry, rendered (Effect's metrics only; the route adds the Node.js and process series). */
export const exposition: Effect.Effect<string> = Effect.map(Metric.snapshot, (pairs) => render(Series.fromPairs(pairs)))
