import * as Effect from "effect/Effect";
import * as Metric from "effect/Metric";
import * as MetricState from "effect/MetricState";
import * as Option from "effect/Option";
/**
 * Effect's metric registry in the Prometheus text exposition format (0.0.4).
 * Written here rather than through `@opentelemetry/exporter-prometheus`: that
 * path needs the OpenTelemetry metrics SDK as well, converts every scrape
 * through its data model and renames series (unit suffixes, `target_info`);
 * the registry's snapshot maps onto the format directly in a page of code.
 */
export const contentType = "text/plain; version=0.0.4; charset=utf-8";
const metricName = (name) => name.replace(/[^a-zA-Z0-9_:]/g, "_").replace(/^([0-9])/, "_$1");
const labelName = (name) => name.replace(/[^a-zA-Z0-9_]/g, "_").replace(/^([0-9])/, "_$1");
const escapeLabel = (value) => value.replace(/\\/g, "\\\\").replace(/"/g, "\\\"").replace(/\n/g, "\\n");
const escapeHelp = (value) => value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
const formatValue = (value) => {
    if (typeof value === "bigint")
        return value.toString();
    if (Number.isNaN(value))
        return "NaN";
    if (value === Infinity)
        return "+Inf";
    if (value === -Infinity)
        return "-Inf";
    return String(value);
};
const labelsOf = (pairs) => pairs.length === 0 ? "" : `{${pairs.map(([k, v]) => `${labelName(k)}="${escapeLabel(v)}"`).join(",")}}`;
const keyOf = (pair) => `${pair.metricKey.name}${labelsOf(pair.metricKey.tags.map((tag) => [tag.key, tag.value]))}`;
/** Renders a snapshot of metric pairs (exported for tests). */
export const render = (pairs) => {
    const families = new Map();
    const family = (name, type, help) => {
        let found = families.get(name);
        if (found === undefined) {
            found = { type, help, lines: [] };
            families.set(name, found);
        }
        return found;
    };
    // Series in a stable order (by name, then labels), each histogram's buckets in increasing `le`.
    const sorted = [...pairs].sort((a, b) => keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0);
    for (const pair of sorted) {
        const name = metricName(pair.metricKey.name);
        const help = Option.getOrElse(pair.metricKey.description, () => name);
        const tags = pair.metricKey.tags.map((tag) => [tag.key, tag.value]);
        const state = pair.metricState;
        if (MetricState.isCounterState(state)) {
            family(name, "counter", help).lines.push(`${name}${labelsOf(tags)} ${formatValue(state.count)}`);
        }
        else if (MetricState.isGaugeState(state)) {
            family(name, "gauge", help).lines.push(`${name}${labelsOf(tags)} ${formatValue(state.value)}`);
        }
        else if (MetricState.isHistogramState(state)) {
            const lines = family(name, "histogram", help).lines;
            for (const [boundary, count] of state.buckets) {
                lines.push(`${name}_bucket${labelsOf([...tags, ["le", formatValue(boundary)]])} ${count}`);
            }
            lines.push(`${name}_sum${labelsOf(tags)} ${formatValue(state.sum)}`);
            lines.push(`${name}_count${labelsOf(tags)} ${state.count}`);
        }
        else if (MetricState.isFrequencyState(state)) {
            // A frequency counts occurrences of each string: a counter labelled by it.
            const lines = family(name, "counter", help).lines;
            for (const [key, count] of state.occurrences)
                lines.push(`${name}${labelsOf([...tags, ["key", key]])} ${count}`);
        }
        else if (MetricState.isSummaryState(state)) {
            const lines = family(name, "summary", help).lines;
            for (const [quantile, value] of state.quantiles) {
                lines.push(`${name}${labelsOf([...tags, ["quantile", String(quantile)]])} ${formatValue(Option.getOrElse(value, () => NaN))}`);
            }
            lines.push(`${name}_sum${labelsOf(tags)} ${formatValue(state.sum)}`);
            lines.push(`${name}_count${labelsOf(tags)} ${state.count}`);
        }
    }
    const out = [];
    for (const name of [...families.keys()].sort()) {
        const { help, lines, type } = families.get(name);
        out.push(`# HELP ${name} ${escapeHelp(help)}`, `# TYPE ${name} ${type}`, ...lines);
    }
    return out.join("\n") + "\n";
};
/** The whole registry, rendered. */
export const exposition = Effect.map(Metric.snapshot, render);
//# sourceMappingURL=Prometheus.js.map