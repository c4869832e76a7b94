import { expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { runWorker } from "../../src/WorkerSdk/WorkerSdk.js"
import { fetchLayer, isTerminal, requestRun, serverUrl, waitForRun } from "../sdk/support.js"
import { createTrigger, mintRegistrationToken, setupEnvironment } from "../support/Fixtures.js"
import { call, layer } from "../support/TestApp.js"
import { runningRun, startRun, step } from "./support.js"

/** One MCP tool call with the trigger's token; answers the tool's JSON result. */
const tool = (token: string, name: string, args: Record<string, unknown>) =>
  Effect.gen(function*() {
    const res = yield* call("POST", "/api/v1/mcp", {
      rawBody: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
      headers: { accept: "application/json, text/event-stream", authorization: `Bearer ${token}` }
    })
    expect(res.status).toBe(200)
    const body = typeof res.body === "string" ? JSON.parse(res.body.split("\n").find((l: string) => l.startsWith("data: "))!.slice(6)) : res.body
    expect(body.result.isError ?? false).toBe(false)
    return JSON.parse(body.result.content[0].text)
  })

withLayer(layer(), { excludeTestServices: true })("a run's structured output", (it) => {
  it.effect("complete may carry output (any JSON): GET /runs/{id} and MCP get_run / wait_for_run return it; the seed's fields keep their meaning", () =>
    Effect.gen(function*() {
      const { env, runId, trigger, worker } = yield* runningRun
      const output = { artifacts: ["dist/app.tar.gz"], tests: { passed: 120, failed: 0 }, note: "nul\u0000here", ok: true }
      const done = yield* step(worker, runId, "complete", { status: "succeeded", stdout: "built", output })
      expect(done.status).toBe(200)
      const detail = yield* call("GET", `/api/v1/runs/${runId}`, { cookie: env.user.cookie })
      expect(detail.body.output).toEqual({ ...output, note: "nul\uFFFDhere" })
      expect(detail.body.shortMessage).toBe("built")

      const minted = yield* call("POST", `/api/v1/triggers/${trigger.id}/rotate-mcp-token`, { cookie: env.user.cookie })
      const token = minted.body.mcpToken as string
      expect((yield* tool(token, "get_run", { runId })).output).toEqual(detail.body.output)
      expect((yield* tool(token, "wait_for_run", { runId, timeoutSeconds: 1 })).output).toEqual(detail.body.output)

      // Without output: null. A scalar is JSON too.
      const plain = yield* startRun(env, trigger.id, worker)
      yield* step(worker, plain, "complete", { status: "failed", stderr: "boom" })
      expect((yield* call("GET", `/api/v1/runs/${plain}`, { cookie: env.user.cookie })).body.output).toBeNull()
      const scalar = yield* startRun(env, trigger.id, worker)
      const batched = yield* call("POST", `/api/v1/workers/${worker.workerId}/runs/complete`, {
        bearer: worker.token,
        body: { runs: [{ runId: scalar, status: "succeeded", output: 42 }] }
      })
      expect(batched.status).toBe(200)
      expect((yield* call("GET", `/api/v1/runs/${scalar}`, { cookie: env.user.cookie })).body.output).toBe(42)
    }))

  it.effect("an output over 1 MiB is refused (the body limit, 413) and the run stays running", () =>
    Effect.gen(function*() {
      const { env, runId, worker } = yield* runningRun
      const big = yield* step(worker, runId, "complete", { status: "succeeded", output: { blob: "x".repeat(1024 * 1024) } })
      expect(big.status).toBe(413)
      expect((yield* call("GET", `/api/v1/runs/${runId}`, { cookie: env.user.cookie })).body.status).toBe("running")
    }))

  it.effect("the SDK sends the handler's output; a value that is no JSON is left out and the rest recorded", () =>
    Effect.gen(function*() {
      // An environment whose only worker is the SDK's.
      const env = yield* setupEnvironment()
      const trigger = yield* createTrigger(env, { name: "sdk output" })
      const worker = yield* runWorker({
        baseUrl: yield* serverUrl,
        registrationToken: yield* mintRegistrationToken(env),
        handler: (run) =>
          Effect.succeed({
            status: "succeeded" as const,
            stdout: "ok",
            output: (run.input as { broken?: boolean } | null)?.broken === true ? () => 1 : { version: "1.2.3" }
          })
      }).pipe(Effect.provide(fetchLayer), Effect.fork)
      const runId = yield* requestRun(env, trigger.id)
      yield* waitForRun(env, trigger.id, runId, isTerminal)
      expect((yield* call("GET", `/api/v1/runs/${runId}`, { cookie: env.user.cookie })).body).toMatchObject({ status: "succeeded", output: { version: "1.2.3" } })
      const broken = yield* call("POST", `/api/v1/triggers/${trigger.id}/run`, { cookie: env.user.cookie, body: { input: { broken: true } } })
      yield* waitForRun(env, trigger.id, broken.body.id, isTerminal)
      expect((yield* call("GET", `/api/v1/runs/${broken.body.id}`, { cookie: env.user.cookie })).body).toMatchObject({ status: "succeeded", shortMessage: "ok", output: null })
      yield* Fiber.interrupt(worker)
    }))
})
