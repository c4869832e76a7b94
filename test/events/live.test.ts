import { describe, expect, layer as withLayer } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { followRunEvents } from "../../src/Client.js"
import { addEnvironment, addMember, createTrigger, registerWorker, setupEnvironment, type TestEnv } from "../support/Fixtures.js"
import { call, layer } from "../support/TestApp.js"
import { openSse } from "./sse.js"

type Worker = { readonly workerId: string; readonly token: string }

const requestRun = (env: TestEnv, triggerId: string) =>
  Effect.gen(function*() {
    const res = yield* call("POST", `/api/v1/triggers/${triggerId}/run`, { cookie: env.user.cookie })
    expect(res.status).toBe(201)
    return res.body.id as string
  })

const op = (worker: Worker, runId: string, step: "claim" | "start" | "complete", body?: unknown) =>
  Effect.tap(call("POST", `/api/v1/workers/${worker.workerId}/runs/${runId}/${step}`, { bearer: worker.token, body }), (res) =>
    expect(res.status).toBe(200))

const eventsPath = (env: TestEnv) => `/api/v1/environments/${env.environmentId}/events`

withLayer(layer(), { excludeTestServices: true })("live run events (SSE)", (it) => {
  describe("GET /environments/{envId}/events", () => {
    it.scoped("one event per transition of the environment (none of another's), each with a cursor and the run; resume with Last-Event-ID loses nothing", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const other = yield* addEnvironment(env)
        const worker = yield* registerWorker(env)
        const trigger = yield* createTrigger(env)
        const otherTrigger = yield* createTrigger(other)

        const sse = yield* openSse(eventsPath(env), { cookie: env.user.cookie })
        expect(sse.status).toBe(200)
        expect(sse.headers["content-type"]).toMatch(/^text\/event-stream/)
        expect(sse.headers["cache-control"]).toBe("no-cache")
        yield* sse.until((text) => text.startsWith(": connected\n\n"), "the first comment line")

        yield* requestRun(other, otherTrigger.id)
        const runId = yield* requestRun(env, trigger.id)
        yield* op(worker, runId, "claim")
        yield* op(worker, runId, "start")
        const done = yield* op(worker, runId, "complete", { status: "succeeded" })
        // requested and assigned (one statement: the worker is online), claimed, started, completed.
        yield* sse.until((text) => sse.runs().length >= 5 && text.includes("succeeded"), "five events")
        const events = sse.runs()
        expect(events).toHaveLength(5)
        expect(events.every((e) => e.run.id === runId && e.run.environmentId === env.environmentId)).toBe(true)
        expect(new Set(events.map((e) => e.id)).size).toBe(5)
        expect(events.every((e) => /^\d+$/.test(e.id))).toBe(true)
        // The data is the run object, as the API answers it.
        expect(events[4]!.run).toEqual(done.body.run)

        // Resume after the second event: exactly the three after it, in the same order, also from the typed client.
        const resumed = yield* openSse(eventsPath(env), { cookie: env.user.cookie, "last-event-id": events[1]!.id })
        yield* resumed.until(() => resumed.runs().length >= 3, "three resumed events")
        expect(resumed.runs().map((e) => e.id)).toEqual(events.slice(2).map((e) => e.id))
        const viaClient = yield* followRunEvents(undefined, env.environmentId, { cookie: env.user.cookie, lastEventId: events[0]!.id }).pipe(
          Stream.take(4),
          Stream.runCollect
        )
        expect(Chunk.toReadonlyArray(viaClient).map((e) => e.cursor)).toEqual(events.slice(1).map((e) => e.id))
        expect(Chunk.toReadonlyArray(viaClient)[3]!.run.status).toBe("succeeded")

        // A later transition reaches both open connections.
        const second = yield* requestRun(env, trigger.id)
        yield* sse.until(() => sse.runs().some((e) => e.run.id === second), "the next run")
        yield* resumed.until(() => resumed.runs().some((e) => e.run.id === second), "the next run (resumed)")
      }))

    it.scoped("viewer+ (cookie or key); another environment, unknown or malformed: 404; no credentials: 401", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const viewer = yield* addMember(env, "viewer")
        const sse = yield* openSse(eventsPath(env), { cookie: viewer.cookie })
        expect(sse.status).toBe(200)
        const stranger = yield* setupEnvironment("stranger")
        const foreign = yield* call("GET", eventsPath(env), { cookie: stranger.user.cookie })
        const unknown = yield* call("GET", `/api/v1/environments/0190a000-0000-7000-8000-000000000000/events`, { cookie: stranger.user.cookie })
        expect(foreign.status).toBe(404)
        expect(foreign.body).toEqual(unknown.body)
        expect((yield* call("GET", `/api/v1/environments/nope/events`, { cookie: env.user.cookie })).status).toBe(404)
        expect((yield* call("GET", eventsPath(env), {})).status).toBe(401)
      }))
  })
})
