import { expect, layer as withLayer } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { createTrigger, registerWorker, setupEnvironment } from "../support/Fixtures.js"
import { call, layer } from "../support/TestApp.js"
import { histograms, parse, value } from "./exposition.js"

const scrape = (headers: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const res = yield* call("GET", "/metrics", { headers })
    expect(res.status).toBe(200)
    expect(res.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/)
    return parse(res.body as string)
  })

withLayer(layer(), { excludeTestServices: true })("GET /metrics", (it) => {
  it.effect("after a run lifecycle: counters moved by exactly the runs made, histograms well formed, gauges read back", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment("metrics")
      const worker = yield* registerWorker(env)
      const trigger = yield* createTrigger(env, { maxRetries: 0 })
      const before = yield* scrape()
      const environment = { environment: env.environmentId }
      const step = (runId: string, name: string, body?: unknown) =>
        call("POST", `/api/v1/workers/${worker.workerId}/runs/${runId}/${name}`, { bearer: worker.token, body })

      const outcomes = ["succeeded", "succeeded", "failed"] as const
      for (const status of outcomes) {
        const run = yield* call("POST", `/api/v1/triggers/${trigger.id}/run`, { cookie: env.user.cookie })
        expect(run.status).toBe(201)
        expect((yield* step(run.body.id, "claim")).status).toBe(200)
        expect((yield* step(run.body.id, "start")).status).toBe(200)
        const done = yield* step(run.body.id, "complete", status === "failed" ? { status, faultClass: "client" } : { status })
        expect(done.status).toBe(200)
      }
      // One more, left with its worker: the active gauge shows it.
      const open = yield* call("POST", `/api/v1/triggers/${trigger.id}/run`, { cookie: env.user.cookie })
      expect(open.status).toBe(201)

      const after = yield* scrape()
      const delta = (name: string, labels: Record<string, string> = {}) => value(after, name, labels) - value(before, name, labels)
      expect(delta("pts_runs_requested_total", environment)).toBe(4)
      expect(delta("pts_runs_ended_total", { ...environment, status: "succeeded" })).toBe(2)
      expect(delta("pts_runs_ended_total", { ...environment, status: "failed" })).toBe(1)
      expect(delta("pts_run_duration_seconds_count", environment)).toBe(3)
      expect(delta("pts_dispatch_latency_seconds_count", environment)).toBe(3)
      expect(value(after, "pts_runs_active", { ...environment, status: "assigned" })).toBe(1)
      expect(value(after, "pts_runs_active", { ...environment, status: "running" })).toBe(0)
      expect(value(after, "pts_supervised_runs")).toBeGreaterThanOrEqual(1)
      // Route templates, never raw paths: the four run requests are one series.
      const runRoute = { method: "POST", route: "/api/v1/triggers/:id/run", status: "201" }
      expect(delta("pts_http_requests_total", runRoute)).toBe(4)
      expect(after.samples.some((s) => s.labels.route?.includes(trigger.id))).toBe(false)
      expect(after.types.get("pts_runs_ended_total")).toBe("counter")
      expect(after.types.get("pts_runs_queued")).toBe("gauge")

      const series = histograms(after)
      expect(series.some((h) => h.name === "pts_http_request_duration_seconds")).toBe(true)
      for (const h of series) {
        const bounds = h.buckets.map(([le]) => le)
        expect(bounds, h.name).toEqual([...bounds].sort((a, b) => a - b))
        expect(bounds.at(-1), h.name).toBe(Infinity)
        for (let i = 1; i < h.buckets.length; i++) expect(h.buckets[i]![1], h.name).toBeGreaterThanOrEqual(h.buckets[i - 1]![1])
        expect(h.buckets.at(-1)![1], h.name).toBe(h.count)
      }

      // The run left assigned ends: after the next scrape its gauge reads 0, not its last value.
      expect((yield* step(open.body.id, "claim")).status).toBe(200)
      expect((yield* step(open.body.id, "complete", { status: "succeeded" })).status).toBe(200)
      const last = yield* scrape()
      expect(value(last, "pts_runs_active", { ...environment, status: "assigned" })).toBe(0)
      expect(value(last, "pts_runs_ended_total", { ...environment, status: "succeeded" }) - value(before, "pts_runs_ended_total", { ...environment, status: "succeeded" })).toBe(3)
    }))

  it.effect("pts_runs_waiting counts queued runs by wait reason, and reads 0 once they no longer wait", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment("waiting")
      const environment = { environment: env.environmentId }
      // No worker yet: both runs wait for one.
      const trigger = yield* createTrigger(env, { concurrency: { limit: 1 } })
      for (let i = 0; i < 2; i++) expect((yield* call("POST", `/api/v1/triggers/${trigger.id}/run`, { cookie: env.user.cookie })).status).toBe(201)
      const before = yield* scrape()
      expect(before.types.get("pts_runs_waiting")).toBe("gauge")
      expect(value(before, "pts_runs_waiting", { ...environment, reason: "no_worker_online" })).toBe(2)
      // A worker polls: one run takes the trigger's place, the other waits on its limit.
      const worker = yield* registerWorker(env)
      expect((yield* call("GET", `/api/v1/workers/${worker.workerId}/poll?wait=0`, { bearer: worker.token })).body.runs).toHaveLength(1)
      const after = yield* scrape()
      expect(value(after, "pts_runs_waiting", { ...environment, reason: "no_worker_online" })).toBe(0)
      expect(value(after, "pts_runs_waiting", { ...environment, reason: "trigger_limit" })).toBe(1)
    }))

  it.effect("Node.js and process series as prom-client names them; Effect's fiber gauge typed gauge; every HELP is a sentence, not the name", () =>
    Effect.gen(function*() {
      const res = yield* call("GET", "/metrics")
      const text = res.body as string
      const after = parse(text)
      for (const [name, type] of [
        ["process_cpu_seconds_total", "counter"],
        ["process_resident_memory_bytes", "gauge"],
        ["process_open_fds", "gauge"],
        ["process_start_time_seconds", "gauge"],
        ["nodejs_heap_size_used_bytes", "gauge"],
        ["nodejs_eventloop_lag_seconds", "gauge"],
        ["nodejs_eventloop_lag_p99_seconds", "gauge"],
        ["nodejs_gc_duration_seconds", "histogram"],
        ["effect_fiber_active", "gauge"],
        ["effect_fiber_started", "counter"]
      ] as const) expect(after.types.get(name), name).toBe(type)
      expect(value(after, "process_resident_memory_bytes")).toBeGreaterThan(10 * 1024 * 1024)
      expect(value(after, "process_cpu_seconds_total")).toBeGreaterThan(0)
      // One process: no process label (that is for several processes of one instance).
      expect(after.samples.filter((s) => s.name.startsWith("process_") || s.name.startsWith("nodejs_")).some((s) => "process" in s.labels)).toBe(false)
      const helps = [...text.matchAll(/^# HELP (\S+) (.*)$/gm)]
      expect(helps.length).toBeGreaterThan(20)
      for (const [, name, help] of helps) {
        expect(help, name).not.toBe(name)
        expect(help!.split(" ").length, name).toBeGreaterThanOrEqual(3)
      }
    }))

  it.effect("every answer carries X-Request-Id: the caller's when it is a plain token, else a new one", () =>
    Effect.gen(function*() {
      const given = yield* call("GET", "/api/v1/health", { headers: { "x-request-id": "req-42.abc" } })
      expect(given.headers["x-request-id"]).toBe("req-42.abc")
      const made = yield* call("GET", "/api/v1/health")
      expect(made.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/)
      const forged = yield* call("GET", "/api/v1/health", { headers: { "x-request-id": "a\" level=ERROR" } })
      expect(forged.headers["x-request-id"]).not.toContain("level")
      const missing = yield* call("GET", "/api/v1/no-such-route")
      expect(missing.status).toBe(404)
      expect(missing.headers["x-request-id"]).toBeDefined()
    }))

  it.effect("liveness and readiness, at the root and under /api/v1", () =>
    Effect.gen(function*() {
      for (const prefix of ["", "/api/v1"]) {
        const live = yield* call("GET", `${prefix}/health/live`)
        expect(live.status).toBe(200)
        expect(live.body).toEqual({ status: "ok" })
        const ready = yield* call("GET", `${prefix}/health/ready`)
        expect(ready.status).toBe(200)
        expect(ready.body).toEqual({ status: "ready" })
      }
    }))
})

const withToken = layer().pipe(
  Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["METRICS_TOKEN", "scrape-secret"]]))))
)

withLayer(withToken, { excludeTestServices: true })("GET /metrics with METRICS_TOKEN", (it) => {
  it.effect("answers 401 without the bearer token or with a wrong one, 200 with it", () =>
    Effect.gen(function*() {
      expect((yield* call("GET", "/metrics")).status).toBe(401)
      expect((yield* call("GET", "/metrics", { bearer: "wrong" })).status).toBe(401)
      const ok = yield* call("GET", "/metrics", { bearer: "scrape-secret" })
      expect(ok.status).toBe(200)
      expect(parse(ok.body as string).types.get("pts_http_requests_total")).toBe("counter")
    }))
})

