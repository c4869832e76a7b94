import * as Effect from "effect/Effect";
import type * as MetricPair from "effect/MetricPair";
/**
 * Effect's metric registry in the Prometheus text exposition format (0.0.4).
 * Written here rather than through `@opentelemetry/exporter-prometheus`: that
 * path needs the OpenTelemetry metrics SDK as well, converts every scrape
 * through its data model and renames series (unit suffixes, `target_info`);
 * the registry's snapshot maps onto the format directly in a page of code.
 */
export declare const contentType = "text/plain; version=0.0.4; charset=utf-8";
/** Renders a snapshot of metric pairs (exported for tests). */
export declare const render: (pairs: ReadonlyArray<MetricPair.MetricPair.Untyped>) => string;
/** The whole registry, rendered. */
export declare const exposition: Effect.Effect<string>;
//# sourceMappingURL=Prometheus.d.ts.map