import { HttpMiddleware } from "@effect/platform"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
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
