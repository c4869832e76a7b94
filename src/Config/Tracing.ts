import { HttpMiddleware } from "@effect/platform"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/**
 * Effect tracing is off unless `TRACING=true`. With no exporter installed the
 * spans go nowhere, yet every `Effect.withSpan` and every SQL statement (which
 * @effect/sql wraps in a `sql.execute` span with attributes) still builds one:
 * measurable CPU on the hot routes. A host that installs an exporter turns it on.
 * Off, the HTTP server's tracer middleware is skipped as well: it would parse
 * the URL and redact the headers of every request for a span nobody records.
 */
export const layer = Layer.unwrapEffect(
  Effect.map(
    Config.boolean("TRACING").pipe(
      Config.withDefault(false),
      Config.withDescription("Build Effect spans (for an OpenTelemetry exporter the host installs)")
    ),
    (enabled) =>
      enabled ? Layer.empty : Layer.mergeAll(
        Layer.setTracerEnabled(false),
        Layer.locallyScoped(HttpMiddleware.currentTracerDisabledWhen, () => true)
      )
  )
)

/**
 * Span options for the hot paths (every run transition, statement and
 * delivery): no call-site stack capture. `Effect.withSpan` otherwise builds a
 * `new Error()` for it each time it is called, tracing on or off.
 */
export const hotSpan = { captureStackTrace: false } as const
