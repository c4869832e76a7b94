import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as OtlpMetrics from "@effect/opentelemetry/OtlpMetrics"
import * as OtlpSerialization from "@effect/opentelemetry/OtlpSerialization"
import * as OtlpTracer from "@effect/opentelemetry/OtlpTracer"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import cluster from "node:cluster"
import * as Metrics from "../Observability/Metrics.js"
import * as Settings from "./Settings.js"

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
  readonly tracing: boolean
  readonly metrics: boolean
  readonly tracesUrl: Option.Option<string>
  readonly metricsUrl: Option.Option<string>
  readonly headers: Redacted.Redacted<Record<string, string>>
  readonly protocol: "http/protobuf" | "http/json"
  readonly serviceName: string
  readonly attributes: Record<string, string>
  readonly tracesIntervalMillis: number
  readonly metricsIntervalMillis: number
}

/** `k=v,k2=v2` with URL-encoded values, as the OpenTelemetry variables write them. */
const pairs = (raw: string): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const part of raw.split(",")) {
    const at = part.indexOf("=")
    if (at <= 0) continue
    const key = part.slice(0, at).trim()
    try {
      out[key] = decodeURIComponent(part.slice(at + 1).trim())
    } catch {
      out[key] = part.slice(at + 1).trim()
    }
  }
  return out
}

// An endpoint: unset or empty, or an http(s) URL (OTLP over HTTP).
const optionalEndpoint = (name: string) =>
  Settings.parsed(name, "an http:// or https:// URL (OTLP over HTTP), or empty", (s) =>
    s.trim().length === 0 ? Option.none<string>() : Settings.httpUrl(s.trim()) ? Option.some(s.trim()) : undefined
  ).pipe(Config.withDefault(Option.none<string>()))

const signalUrl = (base: Option.Option<string>, specific: Option.Option<string>, exporter: string, path: string) =>
  exporter.trim().toLowerCase() === "none"
    ? Option.none()
    : Option.orElse(specific, () => Option.map(base, (url) => `${url.replace(/\/+$/, "")}${path}`))

export const config: Config.Config<Telemetry> = Config.all({
  tracing: Settings.boolean("TRACING").pipe(
    Config.withDefault(false),
    Config.withDescription("Build Effect spans (for an OpenTelemetry exporter the host installs)")
  ),
  metrics: Settings.boolean("METRICS_ENABLED").pipe(Config.withDefault(true)),
  disabled: Settings.boolean("OTEL_SDK_DISABLED").pipe(Config.withDefault(false)),
  endpoint: optionalEndpoint("OTEL_EXPORTER_OTLP_ENDPOINT"),
  tracesEndpoint: optionalEndpoint("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
  metricsEndpoint: optionalEndpoint("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"),
  tracesExporter: Config.string("OTEL_TRACES_EXPORTER").pipe(Config.withDefault("otlp")),
  metricsExporter: Config.string("OTEL_METRICS_EXPORTER").pipe(Config.withDefault("otlp")),
  headers: Config.redacted("OTEL_EXPORTER_OTLP_HEADERS").pipe(Config.withDefault(Redacted.make(""))),
  protocol: Settings.oneOf("OTEL_EXPORTER_OTLP_PROTOCOL", ["http/protobuf", "http/json"] as const).pipe(
    Config.withDefault("http/protobuf" as const)
  ),
  serviceName: Config.string("OTEL_SERVICE_NAME").pipe(Config.withDefault("pipeline-trigger-service")),
  attributes: Config.string("OTEL_RESOURCE_ATTRIBUTES").pipe(Config.withDefault("")),
  tracesIntervalMillis: Settings.wholeNumber("OTEL_BSP_SCHEDULE_DELAY", { min: 1, unit: "milliseconds" }).pipe(Config.withDefault(5000)),
  metricsIntervalMillis: Settings.wholeNumber("OTEL_METRIC_EXPORT_INTERVAL", { min: 1, unit: "milliseconds" }).pipe(
    Config.withDefault(60_000)
  )
}).pipe(Config.map((c): Telemetry => {
  const base = c.disabled ? Option.none<string>() : c.endpoint
  const tracesUrl = c.disabled ? Option.none<string>() : signalUrl(base, c.tracesEndpoint, c.tracesExporter, "/v1/traces")
  const metricsUrl = c.disabled || !c.metrics
    ? Option.none<string>()
    : signalUrl(base, c.metricsEndpoint, c.metricsExporter, "/v1/metrics")
  return {
    tracing: c.tracing || Option.isSome(tracesUrl),
    metrics: c.metrics,
    tracesUrl,
    metricsUrl,
    headers: Redacted.make(pairs(Redacted.value(c.headers))),
    protocol: c.protocol,
    serviceName: c.serviceName,
    attributes: pairs(c.attributes),
    tracesIntervalMillis: c.tracesIntervalMillis,
    metricsIntervalMillis: c.metricsIntervalMillis
  }
}))

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
export const layerWith = (telemetry: Telemetry): Layer.Layer<never> => {
  const resource = {
    serviceName: telemetry.serviceName,
    // One of several processes (WEB_CONCURRENCY): its series are its own, and must not merge with
    // the others' into one stream at the collector (each process's counters start at its start).
    attributes: {
      ...telemetry.attributes,
      "service.name": telemetry.serviceName,
      ...(cluster.isWorker ? { "process.pid": String(process.pid) } : {})
    }
  }
  const headers = Redacted.value(telemetry.headers)
  const exporters = Layer.mergeAll(
    Option.match(telemetry.tracesUrl, {
      onNone: () => Layer.empty,
      onSome: (url) =>
        OtlpTracer.layer({ url, resource, headers, exportInterval: telemetry.tracesIntervalMillis, shutdownTimeout: "3 seconds" })
    }),
    Option.match(telemetry.metricsUrl, {
      onNone: () => Layer.empty,
      onSome: (url) =>
        OtlpMetrics.layer({ url, resource, headers, exportInterval: telemetry.metricsIntervalMillis, shutdownTimeout: "3 seconds" })
    })
  ).pipe(
    Layer.provide(telemetry.protocol === "http/json" ? OtlpSerialization.layerJson : OtlpSerialization.layerProtobuf),
    Layer.provide(FetchHttpClient.layer)
  )
  const switches = Layer.effectDiscard(Effect.sync(() => Metrics.setEnabled(telemetry.metrics)))
  if (!telemetry.tracing) {
    return Layer.mergeAll(
      switches,
      Layer.setTracerEnabled(false),
      Layer.locallyScoped(HttpMiddleware.currentTracerDisabledWhen, () => true),
      exporters
    )
  }
  return Layer.merge(switches, exporters)
}

export const layer = Layer.unwrapEffect(Effect.map(config, layerWith))

/**
 * A span for the hot paths (every run transition, statement and delivery),
 * built only when tracing is on. Off, `Effect.withSpan` still makes a no-op
 * span and threads it through the context (and builds a `new Error()` for
 * the call site unless told not to): measurable at hundreds of calls a second.
 */
export const hotSpan = (name: string, attributes?: Record<string, unknown>) =>
<A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.withFiberRuntime((fiber) =>
    fiber.getFiberRef(FiberRef.currentTracerEnabled)
      ? Effect.withSpan(self, name, attributes === undefined ? { captureStackTrace: false } : { captureStackTrace: false, attributes })
      : self
  )
