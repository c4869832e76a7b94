import { afterAll, expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as Tracing from "../../src/Config/Tracing.js"
import { createTrigger, setupEnvironment } from "../support/Fixtures.js"
import { call, layer } from "../support/TestApp.js"

interface Span {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly attributes: ReadonlyArray<{ key: string; value: { stringValue?: string; intValue?: string } }>
}

/** An OTLP/HTTP JSON receiver in memory: every span posted to /v1/traces, and the paths posted to. */
const received: Array<Span> = []
const paths: Array<string> = []
const receiver = http.createServer((req, res) => {
  const chunks: Array<Buffer> = []
  req.on("data", (c: Buffer) => chunks.push(c))
  req.on("end", () => {
    paths.push(req.url ?? "")
    if (req.url === "/v1/traces") {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
      for (const rs of body.resourceSpans ?? []) for (const ss of rs.scopeSpans ?? []) received.push(...ss.spans)
    }
    res.writeHead(200, { "content-type": "application/json" }).end("{}")
  })
})
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())))
const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`

const telemetry: Tracing.Telemetry = {
  tracing: true,
  metrics: true,
  tracesUrl: Option.some(`${endpoint}/v1/traces`),
  metricsUrl: Option.some(`${endpoint}/v1/metrics`),
  headers: Redacted.make({}),
  protocol: "http/json",
  serviceName: "pts-test",
  attributes: {},
  tracesIntervalMillis: 100,
  metricsIntervalMillis: 200
}

const attribute = (span: Span, key: string) => {
  const found = span.attributes.find((a) => a.key === key)?.value
  return found?.stringValue ?? found?.intValue
}

withLayer(layer().pipe(Layer.provide(Tracing.layerWith(telemetry))), { excludeTestServices: true })("OTLP export", (it) => {
  it.effect("one run request: its spans reach the collector as one trace, request → handler → SQL, with the run id", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment("otlp")
      const trigger = yield* createTrigger(env)
      const run = yield* call("POST", `/api/v1/triggers/${trigger.id}/run`, { cookie: env.user.cookie })
      expect(run.status).toBe(201)
      const runId = run.body.id as string

      // The exporter sends every 100 ms: wait for the span naming the run.
      let tagged: Span | undefined
      for (let i = 0; i < 100 && tagged === undefined; i++) {
        yield* Effect.sleep("50 millis")
        tagged = received.find((span) => attribute(span, "runId") === runId)
      }
      expect(tagged, "a span with the run id").toBeDefined()
      yield* Effect.sleep("300 millis")
      const trace = received.filter((span) => span.traceId === tagged!.traceId)
      const byId = new Map(trace.map((span) => [span.spanId, span]))
      // The test's client propagates its context (traceparent), so the server's span is a child of the client's.
      const root = trace.find((span) => span.name === "http.server POST")
      expect(root).toBeDefined()
      expect(attribute(root!, "http.route")).toBe("/api/v1/triggers/:id/run")
      const ancestry = (span: Span): Array<string> => {
        const names = [span.name]
        let at: Span | undefined = span
        while (at?.parentSpanId) {
          at = byId.get(at.parentSpanId)
          if (at !== undefined) names.push(at.name)
        }
        return names
      }
      // Every server-side span of the trace links up to the request's span through its parents.
      for (const span of trace) {
        if (span.name.startsWith("http.client")) continue
        expect(ancestry(span), span.name).toContain("http.server POST")
      }
      // The handler's span is a child of the request; the run's insert is a SQL span below the request.
      expect(byId.get(tagged!.parentSpanId ?? "")?.name).toBeDefined()
      const statements = trace.filter((span) => span.name === "sql.execute")
      expect(statements.length).toBeGreaterThan(0)
      expect(trace.length).toBeGreaterThan(2)
      // Metrics go out over OTLP as well.
      for (let i = 0; i < 40 && !paths.includes("/v1/metrics"); i++) yield* Effect.sleep("50 millis")
      expect(paths).toContain("/v1/metrics")
    }), { timeout: 60_000 })
})
