import { expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { createTrigger, registerWorker, setupEnvironment, type TestEnv } from "../support/Fixtures.js"
import { call } from "../support/TestApp.js"

export interface Worker {
  readonly workerId: string
  readonly token: string
}

export interface LogLine {
  readonly seq: number
  readonly stream: "stdout" | "stderr"
  readonly text: string
  readonly at: string
}

/** A worker step on a run (claim, start, heartbeat, complete). */
export const step = (worker: Worker, runId: string, name: "claim" | "start" | "heartbeat" | "complete", body?: unknown) =>
  call("POST", `/api/v1/workers/${worker.workerId}/runs/${runId}/${name}`, { bearer: worker.token, body })

/** `POST /workers/{id}/runs/{runId}/logs`. */
export const appendLogs = (worker: Worker, runId: string, body: unknown) =>
  call("POST", `/api/v1/workers/${worker.workerId}/runs/${runId}/logs`, { bearer: worker.token, body })

/** A run of a fresh environment's trigger, claimed and started by a fresh worker of it. */
export const runningRun = Effect.gen(function*() {
  const env = yield* setupEnvironment()
  const worker = yield* registerWorker(env)
  const trigger = yield* createTrigger(env, { heartbeatTimeoutSeconds: 300 })
  const runId = yield* startRun(env, trigger.id, worker)
  return { env, worker, trigger, runId }
})

/** Requests a run of the trigger and has the worker claim and start it. */
export const startRun = (env: TestEnv, triggerId: string, worker: Worker) =>
  Effect.gen(function*() {
    const created = yield* call("POST", `/api/v1/triggers/${triggerId}/run`, { cookie: env.user.cookie })
    expect(created.status).toBe(201)
    const runId = created.body.id as string
    expect((yield* step(worker, runId, "claim")).status).toBe(200)
    expect((yield* step(worker, runId, "start")).status).toBe(200)
    return runId
  })

/** Every stored line of the run, read page by page with `GET /runs/{id}/logs`. */
export const readAll = (runId: string, cookie: string, limit = 5000) =>
  Effect.gen(function*() {
    const lines: Array<LogLine> = []
    let after = 0
    for (;;) {
      const res = yield* call("GET", `/api/v1/runs/${runId}/logs?after=${after}&limit=${limit}`, { cookie })
      expect(res.status).toBe(200)
      lines.push(...res.body.items)
      if (res.body.items.length === 0 || res.body.nextAfter === null) return { lines, nextAfter: res.body.nextAfter as number | null }
      after = res.body.nextAfter
    }
  })

/** `{event, id, data}` of each SSE block of a text. */
export const parseEvents = (text: string) =>
  text.split("\n\n").flatMap((block) => {
    const lines = block.split("\n")
    const event = lines.find((l) => l.startsWith("event: "))?.slice(7)
    if (event === undefined) return []
    const id = lines.find((l) => l.startsWith("id: "))?.slice(4)
    const data = JSON.parse(lines.find((l) => l.startsWith("data: "))!.slice(6))
    return [{ event, id, data }]
  })
