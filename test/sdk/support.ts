import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpServer from "@effect/platform/HttpServer"
import { expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import type { TestEnv } from "../support/Fixtures.js"
import { call } from "../support/TestApp.js"

/** The test server's origin, for clients that need a real URL (the SDK, the CLI). */
export const serverUrl = Effect.gen(function*() {
  const server = yield* HttpServer.HttpServer
  const address = server.address
  if (address._tag !== "TcpAddress") return yield* Effect.dieMessage("test server is not on TCP")
  return `http://127.0.0.1:${address.port}`
})

export const fetchLayer = FetchHttpClient.layer

/** Requests a run of the trigger as the environment owner; answers its id. */
export const requestRun = (env: TestEnv, triggerId: string) =>
  Effect.gen(function*() {
    const res = yield* call("POST", `/api/v1/triggers/${triggerId}/run`, { cookie: env.user.cookie })
    expect(res.status).toBe(201)
    return res.body.id as string
  })

/** The run as the API shows it. */
export const readRun = (env: TestEnv, triggerId: string, runId: string) =>
  Effect.gen(function*() {
    const res = yield* call("GET", `/api/v1/triggers/${triggerId}/runs?limit=200`, { cookie: env.user.cookie })
    expect(res.status).toBe(200)
    const run = (res.body.items as Array<any>).find((r) => r.id === runId)
    if (run === undefined) return yield* Effect.dieMessage(`run ${runId} not listed`)
    return run as Record<string, any>
  })

/** Polls the API until the run satisfies `done` (every 100 ms, up to `seconds`). */
export const waitForRun = (
  env: TestEnv,
  triggerId: string,
  runId: string,
  done: (run: Record<string, any>) => boolean,
  seconds = 20
) =>
  readRun(env, triggerId, runId).pipe(
    Effect.filterOrFail(done, () => "not yet" as const),
    Effect.retry(Schedule.spaced("100 millis").pipe(Schedule.upTo(`${seconds} seconds`))),
    Effect.catchAll(() =>
      Effect.flatMap(readRun(env, triggerId, runId), (run) => Effect.dieMessage(`run never reached the expected state: ${JSON.stringify(run)}`))
    )
  )

export const isTerminal = (run: Record<string, any>) => ["succeeded", "failed", "timed_out", "cancelled"].includes(run.status)
