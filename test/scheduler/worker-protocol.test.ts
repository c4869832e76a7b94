import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { createTrigger, mintApiKey, registerWorker, setupEnvironment, type TestEnv } from "../support/Fixtures.js"
import { call, layer } from "../support/TestApp.js"

type Worker = { readonly workerId: string; readonly token: string }

const requestRun = (env: TestEnv, triggerId: string, body?: unknown) =>
  Effect.gen(function*() {
    const res = yield* call("POST", `/api/v1/triggers/${triggerId}/run`, { cookie: env.user.cookie, body })
    expect(res.status).toBe(201)
    return res.body.id as string
  })

const op = (worker: Worker, runId: string, step: "claim" | "start" | "heartbeat" | "complete", body?: unknown) =>
  call("POST", `/api/v1/workers/${worker.workerId}/runs/${runId}/${step}`, { bearer: worker.token, body })

const poll = (worker: Worker, query = "") => call("GET", `/api/v1/workers/${worker.workerId}/poll${query}`, { bearer: worker.token })

const row = (runId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<Record<string, unknown>>`SELECT * FROM runs WHERE id = ${runId}`
    return rows[0]!
  }).pipe(Effect.orDie)

/** A run this worker has claimed and started. */
const runningRun = (env: TestEnv, triggerId: string, worker: Worker) =>
  Effect.gen(function*() {
    const runId = yield* requestRun(env, triggerId)
    expect((yield* op(worker, runId, "claim")).status).toBe(200)
    expect((yield* op(worker, runId, "start")).status).toBe(200)
    return runId
  })

withLayer(layer(), { excludeTestServices: true })("worker protocol", (it) => {
  it.effect("the whole happy path: run by pwk key, poll, claim, start, heartbeat, complete, read back", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const worker = yield* registerWorker(env)
      const trigger = yield* createTrigger(env, { name: "etl", input: { table: "orders" }, timeoutSeconds: 600, heartbeatTimeoutSeconds: 20 })
      const key = yield* mintApiKey(env, "operator")
      const created = yield* call("POST", `/api/v1/triggers/${trigger.id}/run`, { bearer: key, body: { input: { table: "users" } } })
      expect(created.status).toBe(201)
      const runId = created.body.id as string

      const polled = yield* poll(worker)
      expect(polled.status).toBe(200)
      expect(polled.body.runs).toHaveLength(1)
      expect(polled.body.runs[0]).toMatchObject({
        id: runId,
        status: "assigned",
        workerId: worker.workerId,
        input: { table: "users" },
        trigger: { id: trigger.id, name: "etl", input: { table: "orders" }, timeoutSeconds: 600, heartbeatTimeoutSeconds: 20 }
      })

      const claimed = yield* op(worker, runId, "claim")
      expect(claimed.status).toBe(200)
      expect(claimed.body.run).toMatchObject({ id: runId, status: "claimed" })
      expect(claimed.body.run.claimedAt).toBeTypeOf("string")
      expect((yield* poll(worker)).body.runs).toEqual([])

      const started = yield* op(worker, runId, "start")
      expect(started.body.run).toMatchObject({ status: "running", lastHeartbeatAt: null })
      const beat = yield* op(worker, runId, "heartbeat")
      expect(beat.status).toBe(200)
      expect(beat.body.run.status).toBe("running")
      expect(beat.body.run.lastHeartbeatAt).toBeTypeOf("string")

      const stdout = "é".repeat(300) + "x".repeat(300)
      const done = yield* op(worker, runId, "complete", { status: "succeeded", stdout, stderr: "ignored", costUsd: "0.10" })
      expect(done.status).toBe(200)
      expect(done.body.run).toMatchObject({
        status: "succeeded",
        shortMessage: "é".repeat(300) + "x".repeat(200),
        errorMessage: null,
        costUsd: "0.1",
        faultClass: "none"
      })
      const run = done.body.run
      expect(run.durationMs).toBe(new Date(run.endedAt).getTime() - new Date(run.startedAt).getTime())

      const listed = yield* call("GET", `/api/v1/triggers/${trigger.id}/runs`, { bearer: key })
      expect(listed.body.items).toEqual([run])
    }))

  it.effect("failed: stderr kept as errorMessage (64 KiB), faultClass defaults to client; validation of the body", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const worker = yield* registerWorker(env)
      const trigger = yield* createTrigger(env)
      const a = yield* runningRun(env, trigger.id, worker)
      const failed = yield* op(worker, a, "complete", { status: "failed", stderr: "boom\n".repeat(20000) })
      expect(failed.body.run).toMatchObject({ status: "failed", faultClass: "client", shortMessage: null, costUsd: null })
      expect(failed.body.run.errorMessage).toHaveLength(64 * 1024)

      const b = yield* requestRun(env, trigger.id)
      yield* op(worker, b, "claim")
      const infra = yield* op(worker, b, "complete", { status: "failed", faultClass: "infra" })
      expect(infra.body.run).toMatchObject({ status: "failed", faultClass: "infra", errorMessage: null })
      // Completion from `claimed` measures from claimedAt.
      const r = infra.body.run
      expect(r.durationMs).toBe(new Date(r.endedAt).getTime() - new Date(r.claimedAt).getTime())

      const c = yield* runningRun(env, trigger.id, worker)
      const bad = yield* op(worker, c, "complete", { status: "done", costUsd: "1.123456789", faultClass: "oops" })
      expect(bad.status).toBe(400)
      expect(Object.keys(bad.body.details.fieldErrors).sort()).toEqual(["costUsd", "faultClass", "status"])
      const none = yield* op(worker, c, "complete", { status: "failed", faultClass: "none" })
      expect(none.status).toBe(400)
      expect(none.body.details.fieldErrors.faultClass).toBeDefined()
      expect((yield* row(c)).status).toBe("running")
    }))

  it.effect("409 for every transition from the wrong state or on a terminal run, and nothing changes", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const worker = yield* registerWorker(env)
      const trigger = yield* createTrigger(env)
      const runId = yield* requestRun(env, trigger.id)
      const expectConflict = (step: "claim" | "start" | "heartbeat" | "complete") =>
        Effect.gen(function*() {
          const before = yield* row(runId)
          const res = yield* op(worker, runId, step, step === "complete" ? { status: "succeeded" } : undefined)
          expect(res.status, `${step} from ${before.status}`).toBe(409)
          expect(res.body.error).toBeTypeOf("string")
          expect(yield* row(runId)).toEqual(before)
        })
      // assigned
      yield* expectConflict("start")
      yield* expectConflict("heartbeat")
      yield* expectConflict("complete")
      yield* op(worker, runId, "claim")
      // claimed
      yield* expectConflict("claim")
      yield* op(worker, runId, "start")
      // running
      yield* expectConflict("claim")
      yield* expectConflict("start")
      expect((yield* op(worker, runId, "complete", { status: "succeeded" })).status).toBe(200)
      // terminal
      for (const step of ["claim", "start", "heartbeat", "complete"] as const) yield* expectConflict(step)
    }))

  it.effect("404 for another worker's path or run, unknown and malformed ids; 401 without a worker token", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const mine = yield* registerWorker(env, "mine")
      const trigger = yield* createTrigger(env, { workerId: mine.workerId })
      const other = yield* registerWorker(env, "other")
      const runId = yield* requestRun(env, trigger.id)
      expect((yield* row(runId)).worker_id).toBe(mine.workerId)

      const foreignPath = yield* call("GET", `/api/v1/workers/${mine.workerId}/poll`, { bearer: other.token })
      expect(foreignPath.status).toBe(404)
      expect(foreignPath.body).toEqual({ error: "worker not found" })
      for (const step of ["claim", "start", "heartbeat", "complete"] as const) {
        const viaOtherPath = yield* call("POST", `/api/v1/workers/${mine.workerId}/runs/${runId}/${step}`, {
          bearer: other.token,
          body: { status: "succeeded" }
        })
        expect(viaOtherPath.status).toBe(404)
        const notTheirs = yield* op(other, runId, step, { status: "succeeded" })
        expect(notTheirs.status).toBe(404)
        expect(notTheirs.body).toEqual({ error: "run not found" })
      }
      expect((yield* op(mine, "01a20584-0794-7013-9a44-9e3ec729b4ea", "claim")).status).toBe(404)
      expect((yield* op(mine, "nope", "claim")).status).toBe(404)
      expect((yield* row(runId)).status).toBe("assigned")

      expect((yield* call("GET", `/api/v1/workers/${mine.workerId}/poll`, {})).status).toBe(401)
      const key = yield* mintApiKey(env, "admin")
      expect((yield* call("GET", `/api/v1/workers/${mine.workerId}/poll`, { bearer: key })).status).toBe(401)
      expect((yield* call("GET", `/api/v1/workers/${mine.workerId}/poll`, { bearer: "wkt_forged" })).status).toBe(401)
    }))

  it.effect("poll validates wait, claim and max", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const worker = yield* registerWorker(env)
      const bad = yield* poll(worker, "?wait=31&claim=maybe&max=0")
      expect(bad.status).toBe(400)
      expect(Object.keys(bad.body.details.fieldErrors).sort()).toEqual(["claim", "max", "wait"])
      expect((yield* poll(worker, "?wait=1.5")).status).toBe(400)
      expect((yield* poll(worker, "?max=101&claim=true")).status).toBe(400)
      const startAlone = yield* poll(worker, "?start=true")
      expect(startAlone.status).toBe(400)
      expect(Object.keys(startAlone.body.details.fieldErrors)).toEqual(["start"])
      expect((yield* poll(worker, "?claim=true&start=yes")).status).toBe(400)
    }))

  it.effect("claim=true&start=true starts the claimed runs in the poll: running, execution deadline set", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const worker = yield* registerWorker(env)
      const trigger = yield* createTrigger(env, { timeoutSeconds: 30, heartbeatTimeoutSeconds: 60 })
      const ids = [yield* requestRun(env, trigger.id), yield* requestRun(env, trigger.id)]
      const res = yield* poll(worker, "?claim=true&max=5&start=true")
      expect(res.status).toBe(200)
      expect(res.body.runs.map((r: any) => [r.id, r.status])).toEqual([[ids[0], "running"], [ids[1], "running"]])
      expect(res.body.runs[0].trigger.id).toBe(trigger.id)
      expect(res.body.runs[0].startedAt).toBe(res.body.runs[0].claimedAt)
      const stored = yield* row(ids[0]!)
      expect(stored.status).toBe("running")
      // The execution deadline (30 s) is nearer than the heartbeat one (60 s).
      const startedAt = new Date(res.body.runs[0].startedAt).getTime()
      expect(new Date(stored.deadline_at as string).getTime() - startedAt).toBe(30_000)
      // Already running: start is a wrong-state 409, heartbeat and complete go on as after start.
      expect((yield* op(worker, ids[0]!, "start")).status).toBe(409)
      expect((yield* op(worker, ids[0]!, "heartbeat")).status).toBe(200)
      const done = yield* op(worker, ids[0]!, "complete", { status: "succeeded", stdout: "ok" })
      expect(done.status).toBe(200)
      expect(done.body.run.status).toBe("succeeded")
    }))

  it.effect("a waiting claim=true&start=true poll handed a new run gets it running", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const worker = yield* registerWorker(env)
      const trigger = yield* createTrigger(env)
      const fiber = yield* Effect.fork(poll(worker, "?wait=20&claim=true&start=true"))
      yield* Effect.sleep("300 millis")
      const runId = yield* requestRun(env, trigger.id)
      const res = yield* Fiber.join(fiber)
      expect(res.status).toBe(200)
      expect(res.body.runs.map((r: any) => [r.id, r.status])).toEqual([[runId, "running"]])
      expect(res.body.runs[0].trigger.name).toBe(trigger.name)
      expect((yield* row(runId)).status).toBe("running")
    }))

  it.effect("claim=true&max=K claims up to K runs in the poll", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const worker = yield* registerWorker(env)
      const trigger = yield* createTrigger(env)
      const ids = [yield* requestRun(env, trigger.id), yield* requestRun(env, trigger.id), yield* requestRun(env, trigger.id)]
      const first = yield* poll(worker, "?claim=true&max=2")
      expect(first.status).toBe(200)
      expect(first.body.runs.map((r: any) => [r.id, r.status])).toEqual([[ids[0], "claimed"], [ids[1], "claimed"]])
      expect(first.body.runs[0].trigger.id).toBe(trigger.id)
      const second = yield* poll(worker, "?claim=true")
      expect(second.body.runs.map((r: any) => r.id)).toEqual([ids[2]])
      expect((yield* poll(worker, "?claim=true&max=100")).body.runs).toEqual([])
      expect((yield* op(worker, ids[0]!, "start")).status).toBe(200)
    }))

  it.effect("a long poll returns as soon as a run is assigned, not at the end of its wait", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const worker = yield* registerWorker(env)
      const trigger = yield* createTrigger(env)
      const started = Date.now()
      const fiber = yield* Effect.fork(poll(worker, "?wait=20&claim=true"))
      yield* Effect.sleep("300 millis")
      const runId = yield* requestRun(env, trigger.id)
      const res = yield* Fiber.join(fiber)
      expect(res.status).toBe(200)
      expect(res.body.runs.map((r: any) => r.id)).toEqual([runId])
      // Well before the 20 s wait would end, yet loose enough for a machine at load 16.
      expect(Date.now() - started).toBeLessThan(12_000)

      // With nothing to hand out, a short wait ends empty after about its length.
      const t0 = Date.now()
      const empty = yield* poll(worker, "?wait=1")
      expect(empty.body.runs).toEqual([])
      expect(Date.now() - t0).toBeGreaterThanOrEqual(900)
    }))

  it.effect("among workers with equally few active runs, a new run goes to the one whose claim poll is waiting", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const first = yield* registerWorker(env)
      const waiting = yield* registerWorker(env)
      const trigger = yield* createTrigger(env)
      // Both idle; without the tie-break the lower id (the first) would get it and the waiting poll nothing.
      const fiber = yield* Effect.fork(poll(waiting, "?wait=10&claim=true"))
      yield* Effect.sleep("300 millis")
      const runId = yield* requestRun(env, trigger.id)
      const res = yield* Fiber.join(fiber)
      expect(res.body.runs.map((r: any) => [r.id, r.status])).toEqual([[runId, "claimed"]])
      expect((yield* row(runId)).worker_id).toBe(waiting.workerId)
      expect(first.workerId < waiting.workerId).toBe(true)
    }))

  it.effect("batched claim polls racing a stream of run requests: every run reaches exactly one poll, claimed", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const workers = [yield* registerWorker(env), yield* registerWorker(env), yield* registerWorker(env)]
      const trigger = yield* createTrigger(env)
      const key = yield* mintApiKey(env, "operator")
      const total = 120
      const received = new Map<string, number>()
      let requested = 0
      // Some polls claim what is assigned, some are handed runs by the request
      // that creates them, some wait out their deadline: the handoff's races.
      const work = (worker: Worker) =>
        Effect.gen(function*() {
          while (received.size < total) {
            const res = yield* poll(worker, "?wait=1&claim=true&max=3")
            expect(res.status).toBe(200)
            expect(res.body.runs.length).toBeLessThanOrEqual(3)
            for (const run of res.body.runs) {
              expect(run.status).toBe("claimed")
              received.set(run.id, (received.get(run.id) ?? 0) + 1)
            }
          }
        })
      const produce = Effect.gen(function*() {
        while (requested < total) {
          requested++
          const res = yield* call("POST", `/api/v1/triggers/${trigger.id}/run`, { bearer: key })
          expect(res.status).toBe(201)
          if (requested % 7 === 0) yield* Effect.sleep("20 millis")
        }
      })
      yield* Effect.all([...workers.map(work), produce, produce], { concurrency: "unbounded" }).pipe(
        Effect.timeoutFail({ duration: "40 seconds", onTimeout: () => new Error(`only ${received.size} of ${total} runs reached a poll`) })
      )
      expect(received.size).toBe(total)
      expect([...received.values()].every((n) => n === 1)).toBe(true)
      const sql = yield* SqlClient.SqlClient
      const states = yield* sql<{ status: string; n: number }>`
        SELECT status, count(*)::int AS n FROM runs WHERE trigger_id = ${trigger.id} GROUP BY status`
      expect(states).toEqual([{ status: "claimed", n: total }])
    }))

  it.effect("assignment: pinned worker, else the online worker with the fewest active runs; offline workers get nothing", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const sql = yield* SqlClient.SqlClient
      const a = yield* registerWorker(env, "a")
      const b = yield* registerWorker(env, "b")
      const c = yield* registerWorker(env, "c")
      // c is offline: last seen long ago.
      yield* sql`UPDATE workers SET last_seen_at = now() - interval '1 hour' WHERE id = ${c.workerId}`
      const pinned = yield* createTrigger(env, { name: "pinned", workerId: b.workerId })
      const free = yield* createTrigger(env, { name: "free" })
      const p1 = yield* requestRun(env, pinned.id)
      const p2 = yield* requestRun(env, pinned.id)
      expect((yield* row(p1)).worker_id).toBe(b.workerId)
      expect((yield* row(p2)).worker_id).toBe(b.workerId)
      // b has two active runs, a none: the free run goes to a, the next ones balance.
      const f1 = yield* requestRun(env, free.id)
      expect((yield* row(f1)).worker_id).toBe(a.workerId)
      const f2 = yield* requestRun(env, free.id)
      expect((yield* row(f2)).worker_id).toBe(a.workerId)
      const f3 = yield* requestRun(env, free.id)
      expect([a.workerId, b.workerId]).toContain((yield* row(f3)).worker_id)
      const assigned = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM runs WHERE worker_id = ${c.workerId}`
      expect(assigned[0]!.n).toBe(0)
    }))

  it.effect("new runs go to a worker that is polling, not to one that registered and went quiet", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const sql = yield* SqlClient.SqlClient
      const quiet = yield* registerWorker(env, "quiet")
      const polling = yield* registerWorker(env, "polling")
      // Registered 20 s ago and silent since: online (30 s threshold) but not in touch.
      yield* sql`UPDATE workers SET last_seen_at = now() - interval '20 seconds' WHERE id = ${quiet.workerId}`
      const trigger = yield* createTrigger(env)
      // A plain long poll (no claim): the worker waits for an assignment.
      const fiber = yield* Effect.fork(poll(polling, "?wait=10"))
      yield* Effect.sleep("300 millis")
      const runs = [yield* requestRun(env, trigger.id), yield* requestRun(env, trigger.id), yield* requestRun(env, trigger.id)]
      expect((yield* Fiber.join(fiber)).status).toBe(200)
      for (const runId of runs) expect((yield* row(runId)).worker_id).toBe(polling.workerId)

      // With nobody in touch, the quiet (still online) workers are used rather than nobody.
      yield* sql`UPDATE workers SET last_seen_at = now() - interval '20 seconds'`
      const fallback = yield* requestRun(env, trigger.id)
      expect([quiet.workerId, polling.workerId]).toContain((yield* row(fallback)).worker_id)
    }))

  it.effect("a poll waiting longer than the activity window keeps its worker in touch", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const sql = yield* SqlClient.SqlClient
      const worker = yield* registerWorker(env)
      const fiber = yield* Effect.fork(poll(worker, "?wait=20"))
      yield* Effect.sleep("300 millis")
      yield* sql`UPDATE workers SET last_seen_at = now() - interval '20 seconds' WHERE id = ${worker.workerId}`
      // The presence loop (every 2 s) records the waiting poll again, while it
      // still waits: looked for during 12 s (at load 16 the loop runs late),
      // well before the poll's 20 s end could record it instead.
      let age = Number.POSITIVE_INFINITY
      for (let i = 0; i < 48 && !(age < 3); i++) {
        yield* Effect.sleep("250 millis")
        const seen = yield* sql<{ age: number }>`
          SELECT extract(epoch FROM now() - last_seen_at)::float8 AS age FROM workers WHERE id = ${worker.workerId}`
        age = seen[0]!.age
      }
      expect(age).toBeLessThan(3)
      yield* Fiber.interrupt(fiber)
    }))

  it.effect("a queued run waits for a worker and is assigned when one polls", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const trigger = yield* createTrigger(env)
      const runId = yield* requestRun(env, trigger.id)
      expect((yield* row(runId)).status).toBe("queued")
      const worker = yield* registerWorker(env)
      const res = yield* poll(worker, "?claim=true")
      expect(res.body.runs.map((r: any) => [r.id, r.status])).toEqual([[runId, "claimed"]])
    }))

  it.effect("auto-retry: a failed run with attempt <= maxRetries yields a queued retry, up to maxRetries", () =>
    Effect.gen(function*() {
      const env = yield* setupEnvironment()
      const worker = yield* registerWorker(env)
      const trigger = yield* createTrigger(env, { maxRetries: 1, input: { n: 1 } })
      const first = yield* runningRun(env, trigger.id, worker)
      expect((yield* op(worker, first, "complete", { status: "failed", stderr: "e1" })).status).toBe(200)
      const runs1 = (yield* call("GET", `/api/v1/triggers/${trigger.id}/runs`, { cookie: env.user.cookie })).body.items
      expect(runs1).toHaveLength(2)
      const retry = runs1[0]
      expect(retry).toMatchObject({ attempt: 2, retryOfRunId: first, input: { n: 1 } })
      expect(["queued", "assigned"]).toContain(retry.status)

      const claimed = (yield* poll(worker, "?claim=true")).body.runs
      expect(claimed.map((r: any) => r.id)).toEqual([retry.id])
      expect((yield* op(worker, retry.id, "complete", { status: "failed" })).status).toBe(200)
      const runs2 = (yield* call("GET", `/api/v1/triggers/${trigger.id}/runs`, { cookie: env.user.cookie })).body.items
      expect(runs2).toHaveLength(2)
      expect(runs2.map((r: any) => r.status)).toEqual(["failed", "failed"])
    }))

  describe("batched complete (POST /workers/{id}/runs/complete)", () => {
    const completeMany = (worker: Worker, runs: unknown) =>
      call("POST", `/api/v1/workers/${worker.workerId}/runs/complete`, { bearer: worker.token, body: { runs } })

    it.effect("completes each run as complete would; rejects the rest one by one with 404 or 409", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const worker = yield* registerWorker(env)
        const other = yield* registerWorker(env)
        const trigger = yield* createTrigger(env, { maxRetries: 1, workerId: worker.workerId })
        const theirTrigger = yield* createTrigger(env, { name: "theirs", workerId: other.workerId })
        const ok = yield* runningRun(env, trigger.id, worker)
        const failed = yield* runningRun(env, trigger.id, worker)
        const alsoFailed = yield* runningRun(env, trigger.id, worker)
        const claimedOnly = yield* requestRun(env, trigger.id)
        expect((yield* op(worker, claimedOnly, "claim")).status).toBe(200)
        const done = yield* runningRun(env, trigger.id, worker)
        expect((yield* op(worker, done, "complete", { status: "succeeded" })).status).toBe(200)
        const theirs = yield* runningRun(env, theirTrigger.id, other)
        const unknown = "01a20584-0794-7013-9a44-9e3ec729b4ea"

        const res = yield* completeMany(worker, [
          { runId: ok, status: "succeeded", stdout: "fine", costUsd: "0.5" },
          { runId: failed, status: "failed", stderr: "boom" },
          { runId: alsoFailed.toUpperCase(), status: "failed", faultClass: "infra" },
          { runId: claimedOnly, status: "succeeded" },
          { runId: done, status: "succeeded" },
          { runId: theirs, status: "succeeded" },
          { runId: unknown, status: "succeeded" },
          { runId: "nope", status: "succeeded" }
        ])
        expect(res.status).toBe(200)
        const byId = new Map(res.body.runs.map((r: any) => [r.id, r]))
        expect([...byId.keys()].sort()).toEqual([ok, failed, alsoFailed, claimedOnly].sort())
        expect(byId.get(ok)).toMatchObject({ status: "succeeded", shortMessage: "fine", costUsd: "0.5", faultClass: "none" })
        expect(byId.get(failed)).toMatchObject({ status: "failed", errorMessage: "boom", faultClass: "client" })
        expect(byId.get(alsoFailed)).toMatchObject({ status: "failed", faultClass: "infra" })
        expect(byId.get(claimedOnly)).toMatchObject({ status: "succeeded", startedAt: null })
        expect(res.body.rejected).toEqual(expect.arrayContaining([
          { runId: done, status: 409, error: "cannot complete: run is succeeded" },
          { runId: theirs, status: 404, error: "run not found" },
          { runId: unknown, status: 404, error: "run not found" },
          { runId: "nope", status: 404, error: "run not found" }
        ]))
        expect(res.body.rejected).toHaveLength(4)
        expect((yield* row(theirs)).status).toBe("running")

        // Both failures had a retry left: two retries, each its own run.
        const sql = yield* SqlClient.SqlClient
        const retries = yield* sql<{ id: string; retry_of_run_id: string; attempt: number }>`
          SELECT id, retry_of_run_id, attempt FROM runs WHERE retry_of_run_id IS NOT NULL AND trigger_id = ${trigger.id}`
        expect(retries.map((r) => r.retry_of_run_id).sort()).toEqual([failed, alsoFailed].sort())
        expect(new Set(retries.map((r) => r.id)).size).toBe(2)
        expect(retries.every((r) => r.attempt === 2)).toBe(true)
      }))

    it.effect("400 for an empty or oversized batch, a run named twice or a failed run with faultClass none; nothing changes", () =>
      Effect.gen(function*() {
        const env = yield* setupEnvironment()
        const worker = yield* registerWorker(env)
        const trigger = yield* createTrigger(env, { workerId: worker.workerId })
        const a = yield* runningRun(env, trigger.id, worker)
        const b = yield* runningRun(env, trigger.id, worker)
        const empty = yield* completeMany(worker, [])
        expect(empty.status).toBe(400)
        expect(empty.body.details.fieldErrors.runs).toBeDefined()
        const many = Array.from({ length: 101 }, () => ({ runId: a, status: "succeeded" }))
        expect((yield* completeMany(worker, many)).status).toBe(400)
        const twice = yield* completeMany(worker, [{ runId: a, status: "succeeded" }, { runId: a.toUpperCase(), status: "failed" }])
        expect(twice.status).toBe(400)
        expect(twice.body.details.fieldErrors.runs[0]).toContain("named twice")
        const none = yield* completeMany(worker, [{ runId: b, status: "succeeded" }, { runId: a, status: "failed", faultClass: "none" }])
        expect(none.status).toBe(400)
        const shape = yield* completeMany(worker, [{ runId: a, status: "done" }])
        expect(shape.status).toBe(400)
        expect(shape.body.details.fieldErrors.runs).toBeDefined()
        expect((yield* row(a)).status).toBe("running")
        expect((yield* row(b)).status).toBe("running")
        // Another worker's path is 404; no token is 401.
        const other = yield* registerWorker(env)
        const foreign = yield* call("POST", `/api/v1/workers/${other.workerId}/runs/complete`, {
          bearer: worker.token,
          body: { runs: [{ runId: a, status: "succeeded" }] }
        })
        expect(foreign.status).toBe(404)
        expect((yield* call("POST", `/api/v1/workers/${worker.workerId}/runs/complete`, { body: { runs: [] } })).status).toBe(401)
      }))
  })
})
