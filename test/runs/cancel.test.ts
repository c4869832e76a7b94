import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { addMember, createTrigger, mintApiKey, registerWorker, setupEnvironment, type TestEnv } from "../support/Fixtures.js"
import { call, layer } from "../support/TestApp.js"
import { eventually, receiver } from "../webhooks/support.js"

type Worker = { readonly workerId: string; readonly token: string }

const requestRun = (env: TestEnv, triggerId: string) =>
  Effect.gen(function*() {
    const res = yield* call("POST", `/api/v1/triggers/${triggerId}/run`, { cookie: env.user.cookie })
    expect(res.status).toBe(201)
    return res.body.id as string
  })

const cancel = (runId: string, credentials: { cookie?: string; bearer?: string; noOrigin?: boolean }) =>
  call("POST", `/api/v1/runs/${runId}/cancel`, credentials)

const op = (worker: Worker, runId: string, step: "claim" | "start" | "heartbeat" | "complete", body?: unknown) =>
  call("POST", `/api/v1/workers/${worker.workerId}/runs/${runId}/${step}`, { bearer: worker.token, body })

const runningRun = (env: TestEnv, triggerId: string, worker: Worker) =>
  Effect.gen(function*() {
    const runId = yield* requestRun(env, triggerId)
    expect((yield* op(worker, runId, "claim")).status).toBe(200)
    expect((yield* op(worker, runId, "start")).status).toBe(200)
    return runId
  })

/** A running run of a fresh environment's worker, and that worker's poll. */
const runningWithPoll = Effect.gen(function*() {
  const env = yield* setupEnvironment()
  const worker = yield* registerWorker(env)
  const trigger = yield* createTrigger(env, { heartbeatTimeoutSeconds: 60 })
  const runId = yield* runningRun(env, trigger.id, worker)
  const poll = (query: string) => call("GET", `/api/v1/workers/${worker.workerId}/poll${query}`, { bearer: worker.token })
  return { env, worker, runId, poll }
})

/** Starts `poll`, lets it wait, cancels the run meanwhile: the poll's answer, which must come well before its wait ends. */
const cancelDuring = <A, E, R>(poll: Effect.Effect<A, E, R>, runId: string, env: TestEnv) =>
  Effect.gen(function*() {
    const waiting = yield* Effect.fork(poll)
    yield* Effect.sleep("500 millis")
    const started = Date.now()
    expect((yield* cancel(runId, { cookie: env.user.cookie })).status).toBe(200)
    const answer = yield* Fiber.join(waiting)
    // Well before the poll's 20 s wait would end, yet loose enough for a machine at load 16.
    expect(Date.now() - started).toBeLessThan(12_000)
    return answer
  })

const runsOf = (triggerId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: string; status: string; attempt: number }>`SELECT id, status, attempt FROM runs WHERE trigger_id = ${triggerId} ORDER BY id`).pipe(
    Effect.orDie
  )

const auditOf = (runId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ action: string; actor_type: string; metadata: unknown }>`
      SELECT action, actor_type, metadata FROM audit_log WHERE target_id = ${runId} AND action = 'run.cancelled'`).pipe(
    Effect.orDie
  )

const payloads = (rx: { received: (path?: string) => ReadonlyArray<{ raw: Buffer }> }, path: string) =>
  rx.received(path).map((r) => JSON.parse(r.raw.toString("utf8")))

withLayer(layer({ webhookAllowPrivateNetworks: true, cancelGraceSeconds: 1 }), { excludeTestServices: true })("run cancellation", (it) => {
  describe("POST /runs/{id}/cancel", () => {
    it.scoped("a queued run ends cancelled at once: faultClass none, a duration, one webhook with status cancelled, audited, never retried", () =>
      Effect.gen(function*() {
        const rx = yield* receiver
        const env = yield* setupEnvironment()
        const trigger = yield* createTrigger(env, { maxRetries: 3, webhookUrl: rx.url("/queued") })
        const runId = yield* requestRun(env, trigger.id)
        const res = yield* cancel(runId, { cookie: env.user.cookie })
        expect(res.status).toBe(200)
        expect(res.body).toMatchObject({ id: runId, status: "cancelled", faultClass: "none", workerId: null })
        expect(res.body.durationMs).toBeTypeOf("number")
        expect(res.body.endedAt).not.toBeNull()
        expect(res.body.cancelRequestedAt).toBe(res.body.endedAt)

        yield* eventually("the webhook", Effect.sync(() => rx.received("/queued").length), (n) => n === 1)
        expect(payloads(rx, "/queued")[0]).toMatchObject({ runId, status: "cancelled", faultClass: "none" })
        expect(yield* auditOf(runId)).toEqual([{ action: "run.cancelled", actor_type: "user", metadata: { ended: true } }])
        expect(yield* runsOf(trigger.id)).toEqual([{ id: runId, status: "cancelled", attempt: 1 }])
        const timeline = yield* call("GET", `/api/v1/runs/${runId}/events`, { cookie: env.user.cookie })
        expect(timeline.body.items.map((e: any) => [e.status, e.reason])).toEqual([["queued", "requested"], ["cancelled", "cancelled"]])

        const again = yield* cancel(runId, { cookie: env.user.cookie })
        expect(again.status).toBe(409)
        expect(again.body.error).toBe("cannot cancel: run is cancelled")
        yield* Effect.sleep("300 millis")
        expect(rx.received("/queued")).toHaveLength(1)
      }))

    it.effect("an assigned run ends cancelled at once; its worker's claim is then refused", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const worker = yield* registerWorker(env)
        const trigger = yield* createTrigger(env)
        const runId = yield* requestRun(env, trigger.id)
        const polled = yield* call("GET", `/api/v1/workers/${worker.workerId}/poll`, { bearer: worker.token })
        expect(polled.body.runs.map((r: any) => r.id)).toEqual([runId])
        const key = yield* mintApiKey(env, "operator")
        const res = yield* cancel(runId, { bearer: key })
        expect(res.status).toBe(200)
        expect(res.body).toMatchObject({ status: "cancelled", workerId: worker.workerId, faultClass: "none" })
        expect((yield* op(worker, runId, "claim")).status).toBe(409)
        expect(yield* auditOf(runId)).toEqual([{ action: "run.cancelled", actor_type: "api_key", metadata: { ended: true } }])
        // The timeline's end names the cancel and the worker the run was taken from.
        const timeline = yield* call("GET", `/api/v1/runs/${runId}/events`, { cookie: env.user.cookie })
        expect(timeline.body.items.map((e: any) => [e.status, e.reason, e.workerId])).toEqual([
          ["queued", "requested", null],
          ["assigned", "assigned", worker.workerId],
          ["cancelled", "cancelled", worker.workerId]
        ])
      }))

    it.scoped("a running run: cancelRequestedAt on the answer and the heartbeat; the worker's complete is recorded cancelled (one webhook, no retry)", () =>
      Effect.gen(function*() {
        const rx = yield* receiver
        const env = yield* setupEnvironment()
        const worker = yield* registerWorker(env)
        const trigger = yield* createTrigger(env, { maxRetries: 2, webhookUrl: rx.url("/running"), heartbeatTimeoutSeconds: 60 })
        const runId = yield* runningRun(env, trigger.id, worker)
        const before = yield* op(worker, runId, "heartbeat")
        expect(before.body.run.cancelRequestedAt).toBeNull()

        const res = yield* cancel(runId, { cookie: env.user.cookie })
        expect(res.status).toBe(200)
        expect(res.body).toMatchObject({ status: "running", endedAt: null })
        expect(res.body.cancelRequestedAt).not.toBeNull()
        const heartbeat = yield* op(worker, runId, "heartbeat")
        expect(heartbeat.status).toBe(200)
        expect(heartbeat.body.run.cancelRequestedAt).toBe(res.body.cancelRequestedAt)
        // A second cancel changes nothing and is not audited again.
        const again = yield* cancel(runId, { cookie: env.user.cookie })
        expect(again.status).toBe(200)
        expect(again.body.cancelRequestedAt).toBe(res.body.cancelRequestedAt)
        expect(yield* auditOf(runId)).toEqual([{ action: "run.cancelled", actor_type: "user", metadata: { ended: false } }])

        const done = yield* op(worker, runId, "complete", { status: "failed", stderr: "interrupted", faultClass: "client" })
        expect(done.status).toBe(200)
        expect(done.body.run).toMatchObject({ status: "cancelled", faultClass: "none" })
        expect(done.body.run.durationMs).toBeTypeOf("number")
        yield* eventually("the webhook", Effect.sync(() => rx.received("/running").length), (n) => n === 1)
        expect(payloads(rx, "/running")[0]).toMatchObject({ runId, status: "cancelled" })
        expect(yield* runsOf(trigger.id)).toEqual([{ id: runId, status: "cancelled", attempt: 1 }])
        expect((yield* cancel(runId, { cookie: env.user.cookie })).status).toBe(409)
        // The request moved no status; the acknowledgement is the timeline's one cancellation.
        const timeline = yield* call("GET", `/api/v1/runs/${runId}/events`, { cookie: env.user.cookie })
        expect(timeline.body.items.map((e: any) => e.reason).filter((r: string) => r === "cancelled")).toEqual(["cancelled"])
        expect(timeline.body.items.at(-1)).toMatchObject({ status: "cancelled", reason: "cancelled", workerId: worker.workerId })
        const detail = yield* call("GET", `/api/v1/runs/${runId}`, { cookie: env.user.cookie })
        expect(detail.body).toMatchObject({ status: "cancelled", cancelRequestedAt: res.body.cancelRequestedAt, retriedByRunId: null })
      }))

    it.effect("the worker's poll names its runs whose cancel was requested; a cancel ends a waiting long poll at once", () =>
      Effect.gen(function*() {
        const { env, poll, runId, worker } = yield* runningWithPoll
        expect((yield* poll("")).body).toEqual({ runs: [], cancelRequested: [] })

        const started = Date.now()
        const answer = yield* cancelDuring(poll("?wait=20&claim=true"), runId, env)
        expect(answer.body).toEqual({ runs: [], cancelRequested: [runId] })
        // A long poll that starts with a request pending does not wait either.
        const again = yield* poll("?wait=20")
        expect(again.body).toEqual({ runs: [], cancelRequested: [runId] })
        // Two polls of 20 s that waited would take 40 s: neither did (loose for load 16).
        expect(Date.now() - started).toBeLessThan(15_000)
        expect((yield* op(worker, runId, "complete", { status: "failed", faultClass: "client" })).body.run.status).toBe("cancelled")
        expect((yield* poll("")).body.cancelRequested).toEqual([])
      }))

    it.effect("a plain long poll (no claim) is ended by a cancel request too, and one that nothing wakes answers empty at its end", () =>
      Effect.gen(function*() {
        const { env, poll, runId } = yield* runningWithPoll
        // Nothing wakes it: empty at the end of its wait (the answer is not read again).
        const t0 = Date.now()
        expect((yield* poll("?wait=1")).body).toEqual({ runs: [], cancelRequested: [] })
        expect(Date.now() - t0).toBeGreaterThanOrEqual(900)

        const answer = yield* cancelDuring(poll("?wait=20"), runId, env)
        expect(answer.body).toEqual({ runs: [], cancelRequested: [runId] })
      }))

    it.scoped("a worker that never completes: the supervisor ends the run cancelled when the grace period passes", () =>
      Effect.gen(function*() {
        const rx = yield* receiver
        const env = yield* setupEnvironment()
        const worker = yield* registerWorker(env)
        const trigger = yield* createTrigger(env, { maxRetries: 1, webhookUrl: rx.url("/grace"), heartbeatTimeoutSeconds: 60 })
        const runId = yield* runningRun(env, trigger.id, worker)
        const res = yield* cancel(runId, { cookie: env.user.cookie })
        expect(res.body.status).toBe("running")
        // Heartbeats do not move the deadline past the grace period (CANCEL_GRACE_SECONDS=1 here).
        expect((yield* op(worker, runId, "heartbeat")).status).toBe(200)
        const ended = yield* eventually(
          "the grace period to end",
          call("GET", `/api/v1/environments/${env.environmentId}/runs?status=cancelled`, { cookie: env.user.cookie }),
          (r) => r.body.items.length === 1,
          5_000
        )
        expect(ended.body.items[0]).toMatchObject({ id: runId, status: "cancelled", faultClass: "none" })
        expect(new Date(ended.body.items[0].endedAt).getTime() - new Date(res.body.cancelRequestedAt).getTime()).toBeGreaterThanOrEqual(1000)
        // Too late to complete; no retry.
        expect((yield* op(worker, runId, "complete", { status: "succeeded" })).status).toBe(409)
        yield* eventually("the webhook", Effect.sync(() => rx.received("/grace").length), (n) => n === 1)
        expect(payloads(rx, "/grace")[0]).toMatchObject({ runId, status: "cancelled", faultClass: "none" })
        const timeline = yield* call("GET", `/api/v1/runs/${runId}/events`, { cookie: env.user.cookie })
        expect(timeline.body.items.at(-1)).toMatchObject({ status: "cancelled", reason: "cancelled" })
        expect(yield* runsOf(trigger.id)).toHaveLength(1)
      }))

    it.effect("401 without credentials, 403 for viewers and cookie calls without an allowed Origin, 404 for strangers, other environments' keys and malformed ids", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const trigger = yield* createTrigger(env)
        const runId = yield* requestRun(env, trigger.id)
        expect((yield* cancel(runId, {})).status).toBe(401)
        const viewer = yield* addMember(env, "viewer")
        const asViewer = yield* cancel(runId, { cookie: viewer.cookie })
        expect(asViewer.status).toBe(403)
        expect(asViewer.body).toEqual({ error: "insufficient role" })
        expect((yield* cancel(runId, { bearer: yield* mintApiKey(env, "viewer") })).status).toBe(403)
        expect((yield* cancel(runId, { cookie: env.user.cookie, noOrigin: true })).status).toBe(403)
        const stranger = yield* setupEnvironment("other")
        const foreign = yield* cancel(runId, { cookie: stranger.user.cookie })
        expect(foreign.status).toBe(404)
        expect(foreign.body).toEqual({ error: "run not found" })
        expect((yield* cancel(runId, { bearer: yield* mintApiKey(stranger, "admin") })).status).toBe(404)
        expect((yield* cancel("not-a-uuid", { cookie: env.user.cookie })).status).toBe(404)
        expect((yield* cancel("0190c1a2-0000-7000-8000-000000000000", { cookie: env.user.cookie })).status).toBe(404)
        // Nothing of that changed the run.
        const operator = yield* addMember(env, "operator")
        expect((yield* cancel(runId, { cookie: operator.cookie })).body.status).toBe("cancelled")
      }))

    it.effect("listings filter on status=cancelled; the success rate leaves cancelled runs out", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const worker = yield* registerWorker(env)
        const trigger = yield* createTrigger(env)
        const cancelled = yield* requestRun(env, trigger.id)
        expect((yield* cancel(cancelled, { cookie: env.user.cookie })).status).toBe(200)
        const succeeded = yield* runningRun(env, trigger.id, worker)
        expect((yield* op(worker, succeeded, "complete", { status: "succeeded" })).status).toBe(200)
        const list = yield* call("GET", `/api/v1/triggers/${trigger.id}/runs?status=cancelled`, { cookie: env.user.cookie })
        expect(list.status).toBe(200)
        expect(list.body.items.map((r: any) => r.id)).toEqual([cancelled])
        const overview = yield* call("GET", `/api/v1/environments/${env.environmentId}/dashboard/overview`, { cookie: env.user.cookie })
        expect(overview.body.successRatePct).toBe(100)
        expect(overview.body.todaysRuns).toBe(2)
      }))
  })

  describe("races: exactly one terminal transition and one webhook", () => {
    it.scoped("five concurrent cancels of a queued run: one 200, four 409, one audit row, one webhook", () =>
      Effect.gen(function*() {
        const rx = yield* receiver
        const env = yield* setupEnvironment()
        const trigger = yield* createTrigger(env, { webhookUrl: rx.url("/twice") })
        const runId = yield* requestRun(env, trigger.id)
        const answers = yield* Effect.all(Array.from({ length: 5 }, () => cancel(runId, { cookie: env.user.cookie })), {
          concurrency: "unbounded"
        })
        expect(answers.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409])
        expect(yield* auditOf(runId)).toHaveLength(1)
        yield* eventually("the webhook", Effect.sync(() => rx.received("/twice").length), (n) => n === 1)
        yield* Effect.sleep("300 millis")
        expect(rx.received("/twice")).toHaveLength(1)
      }))

    it.scoped("a cancel racing the worker's complete: one terminal state, consistent answers, one webhook", () =>
      Effect.gen(function*() {
        const rx = yield* receiver
        const env = yield* setupEnvironment()
        const worker = yield* registerWorker(env)
        const trigger = yield* createTrigger(env, { maxRetries: 2, webhookUrl: rx.url("/race") })
        const runIds: Array<string> = []
        for (let i = 0; i < 6; i++) {
          const runId = yield* runningRun(env, trigger.id, worker)
          runIds.push(runId)
          const [cancelled, completed] = yield* Effect.all([
            cancel(runId, { cookie: env.user.cookie }),
            op(worker, runId, "complete", { status: "succeeded" })
          ], { concurrency: "unbounded" })
          expect(completed.status).toBe(200)
          if (cancelled.status === 409) {
            // The complete came first.
            expect(completed.body.run.status).toBe("succeeded")
          } else {
            // The cancel came first: the complete is its acknowledgement.
            expect(cancelled.status).toBe(200)
            expect(completed.body.run.status).toBe("cancelled")
          }
        }
        yield* eventually("one webhook per run", Effect.sync(() => rx.received("/race").length), (n) => n === runIds.length)
        yield* Effect.sleep("300 millis")
        expect(new Set(payloads(rx, "/race").map((p) => p.runId))).toEqual(new Set(runIds))
        expect(rx.received("/race")).toHaveLength(runIds.length)
        // Neither outcome retries.
        expect(yield* runsOf(trigger.id)).toHaveLength(runIds.length)
      }))
  })
})
