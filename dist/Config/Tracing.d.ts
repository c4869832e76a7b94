import * as Config from "effect/Config";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Option from "effect/Option";
import * as Redacted from "effect/Redacted";
/**
 * Telemetry from the environment, with the standard OpenTelemetry variables:
 * `OTEL_EXPORTER_OTLP_ENDPOINT` (base URL; `/v1/traces` and `/v1/metrics` are
 * appended) or the per-signal `OTEL_EXPORTER_OTLP_{TRACES,METRICS}_ENDPOINT`
 * (full URLs), `OTEL_EXPORTER_OTLP_HEADERS` (`k=v,...`, kept redacted),
 * `OTEL_EXPORTER_OTLP_PROTOCOL` (`http/protobuf`, the default, or `http/json`),
 * `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_SDK_DISABLED`,
 * `OTEL_TRACES_EXPORTER` / `OTEL_METRICS_EXPORTER` (`none` turns one off),
 * `OTEL_BSP_SCHEDULE_DELAY` and `OTEL_METRIC_EXPORT_INTERVAL` (ms).
 * `TRACING=true` builds spans with no exporter (for one an embedding program installs).
 * `METRICS_ENABLED=false` stops recording metrics (and `/metrics` answers 404).
 */
export interface Telemetry {
    readonly tracing: boolean;
    readonly metrics: boolean;
    readonly tracesUrl: Option.Option<string>;
    readonly metricsUrl: Option.Option<string>;
    readonly headers: Redacted.Redacted<Record<string, string>>;
    readonly protocol: "http/protobuf" | "http/json";
    readonly serviceName: string;
    readonly attributes: Record<string, string>;
    readonly tracesIntervalMillis: number;
    readonly metricsIntervalMillis: number;
}
export declare const config: Config.Config<Telemetry>;
/**
 * Tracing off (the default) costs nothing: with no exporter the spans would
 * go nowhere, yet every `Effect.withSpan` and every SQL statement (which
 * @effect/sql wraps in a `sql.execute` span with attributes) still builds
 * one: measurable CPU on the hot routes. Off, the HTTP server's tracer
 * middleware is skipped as well: it would parse the URL and redact the
 * headers of every request for a span nobody records. On with an OTLP
 * endpoint: every request, statement and webhook attempt is a span, batched
 * to the collector (flushed at shutdown).
 */
export declare const layerWith: (telemetry: Telemetry) => Layer.Layer<never>;
export declare const layer: Layer.Layer<never, import("effect/ConfigError").ConfigError, never>;
/**
 * A span for the hot paths (every run transition, statement and delivery),
 * built only when tracing is on. Off, `Effect.withSpan` still makes a no-op
 * span and threads it through the context (and builds a `new Error()` for
 * the call site unless told not to): measurable at hundreds of calls a second.
 */
export declare const hotSpan: (name: string, attributes?: Record<string, unknown>) => <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>;
//# sourceMappingURL=Tracing.d.ts.map