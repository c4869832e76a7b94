import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, layer as withLayer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { Retention } from "../../src/Retention/Retention.js"
import { layerWith as retentionWith } from "../../src/Retention/RetentionConfig.js"
import { openSse } from "../events/sse.js"
import { addMember, createTrigger, registerWorker } from "../support/Fixtures.js"
import { call, registerUser } from "../support/TestApp.js"
import { layer } from "../support/TestApp.js"
import { appendLogs, parseEvents, readAll, runningRun, startRun, step } from "./support.js"

const testLayer = Layer.fresh(Retention.Default).pipe(
  Layer.provide(retentionWith({ runRetentionDays: Option.some(30), batchSize: 100, pauseMillis: 1 })),
  Layer.provideMerge(layer())
)

const lines = (from: number, to: number, stream: "stdout" | "stderr" = "stdout") =>
  Array.from({ length: to - from + 1 }, (_, i) => ({ stream, text: `line ${from + i}` }))

withLayer(testLayer, { excludeTestServices: true })("run logs", (it) => {
  describe("POST /workers/{id}/runs/{runId}/logs", () => {
    it.effect("stores lines in order, numbered per run from 1; a viewer pages through them; both streams and `at` kept", () =>
      Effect.gen(function*() {
        const { env, runId, worker } = yield* runningRun
        const at = "2026-11-27T10:00:00.000Z"
        const first = yield* appendLogs(worker, runId, {
          lines: [{ stream: "stdout", text: "hello", at }, { stream: "stderr", text: "warning: é ✓" }]
        })
        expect(first.status).toBe(200)
        expect(first.body).toEqual({ stored: 2, duplicates: 0, dropped: 0 })
        expect((yield* appendLogs(worker, runId, { lines: lines(3, 10) })).status).toBe(200)

        const viewer = yield* addMember(env, "viewer")
        const page = yield* call("GET", `/api/v1/runs/${runId}/logs?limit=4`, { cookie: viewer.cookie })
        expect(page.status).toBe(200)
        expect(page.body.items.map((l: any) => [l.seq, l.stream, l.text])).toEqual([
          [1, "stdout", "hello"],
          [2, "stderr", "warning: é ✓"],
          [3, "stdout", "line 3"],
          [4, "stdout", "line 4"]
        ])
        expect(page.body.items[0].at).toBe(at)
        // A running run's log may grow: the next page starts after the last line read.
        expect(page.body.nextAfter).toBe(4)
        const rest = yield* call("GET", `/api/v1/runs/${runId}/logs?after=4`, { cookie: viewer.cookie })
        expect(rest.body.items.map((l: any) => l.seq)).toEqual([5, 6, 7, 8, 9, 10])
        expect(rest.body.nextAfter).toBe(10)
        const none = yield* call("GET", `/api/v1/runs/${runId}/logs?after=10`, { cookie: viewer.cookie })
        expect(none.body).toEqual({ items: [], nextAfter: 10 })

        // Once the run has ended and everything was read: nextAfter null, nothing more will come.
        expect((yield* step(worker, runId, "complete", { status: "succeeded", stdout: "hello" })).status).toBe(200)
        const ended = yield* call("GET", `/api/v1/runs/${runId}/logs?after=8`, { cookie: viewer.cookie })
        expect(ended.body.items.map((l: any) => l.seq)).toEqual([9, 10])
        expect(ended.body.nextAfter).toBeNull()
        // The seed's fields keep their meaning.
        const run = yield* call("GET", `/api/v1/runs/${runId}`, { cookie: viewer.cookie })
        expect(run.body.shortMessage).toBe("hello")
        expect(run.body.errorMessage).toBeNull()
      }))

    it.effect("a batch resent with the same sequence is stored once; an overlapping one stores only its new lines", () =>
      Effect.gen(function*() {
        const { env, runId, worker } = yield* runningRun
        expect((yield* appendLogs(worker, runId, { sequence: 1, lines: lines(1, 3) })).body).toEqual({ stored: 3, duplicates: 0, dropped: 0 })
        // The answer was lost: the worker sends the same batch again.
        expect((yield* appendLogs(worker, runId, { sequence: 1, lines: lines(1, 3) })).body).toEqual({ stored: 0, duplicates: 3, dropped: 0 })
        expect((yield* appendLogs(worker, runId, { sequence: 3, lines: lines(3, 5) })).body).toEqual({ stored: 2, duplicates: 1, dropped: 0 })
        const { lines: stored } = yield* readAll(runId, env.user.cookie)
        expect(stored.map((l) => `${l.seq}:${l.text}`)).toEqual(["1:line 1", "2:line 2", "3:line 3", "4:line 4", "5:line 5"])
      }))

    it.effect("refused: another worker's run (404), another worker's path (404), an unclaimed or ended run (409), a revoked token (401)", () =>
      Effect.gen(function*() {
        const { env, runId, trigger, worker } = yield* runningRun
        const other = yield* registerWorker(env)
        const foreign = yield* appendLogs(other, runId, { lines: lines(1, 1) })
        expect(foreign.status).toBe(404)
        expect(foreign.body).toEqual({ error: "run not found" })
        const wrongPath = yield* call("POST", `/api/v1/workers/${worker.workerId}/runs/${runId}/logs`, { bearer: other.token, body: { lines: lines(1, 1) } })
        expect(wrongPath.status).toBe(404)

        // A run still queued (no worker holds it): not this worker's.
        const queued = yield* call("POST", `/api/v1/triggers/${trigger.id}/run`, { cookie: env.user.cookie })
        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE runs SET worker_id = NULL, status = 'queued' WHERE id = ${queued.body.id}`.pipe(Effect.orDie)
        expect((yield* appendLogs(worker, queued.body.id, { lines: lines(1, 1) })).status).toBe(404)

        expect((yield* step(worker, runId, "complete", { status: "failed", stderr: "boom" })).status).toBe(200)
        const late = yield* appendLogs(worker, runId, { lines: lines(1, 1) })
        expect(late.status).toBe(409)
        expect(late.body.error).toMatch(/run is failed/)

        const second = yield* startRun(env, trigger.id, worker)
        expect((yield* call("DELETE", `/api/v1/workspaces/${env.workspaceId}/workers/${worker.workerId}`, { cookie: env.user.cookie })).status).toBe(204)
        expect((yield* appendLogs(worker, second, { lines: lines(1, 1) })).status).toBe(401)
        const { lines: stored } = yield* readAll(runId, env.user.cookie)
        expect(stored).toEqual([])
      }))

    it.effect("bad bodies are 400 naming the field: over 1,000 lines, an unknown stream, a line over 64 KiB, a bad `at`", () =>
      Effect.gen(function*() {
        const { runId, worker } = yield* runningRun
        const tooMany = yield* appendLogs(worker, runId, { lines: lines(1, 1001) })
        expect(tooMany.status).toBe(400)
        expect(Object.keys(tooMany.body.details.fieldErrors)).toEqual(["lines"])
        const bad = yield* appendLogs(worker, runId, {
          lines: [{ stream: "stdin", text: "x" }, { stream: "stdout", text: "y".repeat(64 * 1024 + 1) }, { stream: "stdout", text: "z", at: "yesterday" }]
        })
        expect(bad.status).toBe(400)
        expect(bad.body.details.fieldErrors.lines.join(" ")).toMatch(/stream must be "stdout" or "stderr"/)
        expect((yield* appendLogs(worker, runId, { lines: [] })).status).toBe(400)
        expect((yield* appendLogs(worker, runId, { lines: lines(1, 1), sequence: 0 })).status).toBe(400)
      }))

    it.scoped("appends to several runs at once, several to each, share groups: each stored whole, numbered without gap, and followed line by line", () =>
      Effect.gen(function*() {
        const runs = yield* Effect.all(Array.from({ length: 3 }, () => runningRun))
        const followers = yield* Effect.forEach(runs, ({ env, runId }) => openSse(`/api/v1/runs/${runId}/logs?follow=1`, { cookie: env.user.cookie }))
        const batch = (run: number, call: number) =>
          Array.from({ length: 10 }, (_, i) => ({ stream: i % 3 === 0 ? "stderr" : "stdout", text: `run ${run} call ${call} line ${i}` }))
        const answers = yield* Effect.all(
          runs.flatMap(({ runId, worker }, run) => Array.from({ length: 5 }, (_, call) => appendLogs(worker, runId, { lines: batch(run, call) }))),
          { concurrency: "unbounded" }
        )
        expect(answers.map((answer) => answer.body)).toEqual(answers.map(() => ({ stored: 10, duplicates: 0, dropped: 0 })))
        for (const [run, { env, runId }] of runs.entries()) {
          const { lines: stored } = yield* readAll(runId, env.user.cookie)
          expect(stored.map((line) => line.seq)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1))
          // Each call's lines together and in their order, the calls in whatever order they were taken.
          const calls = Array.from({ length: 5 }, (_, k) => stored.slice(k * 10, k * 10 + 10))
          const order = calls.map((lines) => Number(/call (\d)/.exec(lines[0]!.text)![1]))
          expect([...order].sort()).toEqual([0, 1, 2, 3, 4])
          expect(calls.map((lines) => lines.map((line) => [line.stream, line.text]))).toEqual(order.map((call) => batch(run, call).map((line) => [line.stream, line.text])))
          const follower = followers[run]!
          yield* follower.until((text) => parseEvents(text).length === 50, "every line, live")
          expect(parseEvents(follower.text()).map((event) => [event.data.seq, event.data.text])).toEqual(stored.map((line) => [line.seq, line.text]))
        }
      }))

    it.effect("NUL and lone surrogates are stored as U+FFFD, never refused", () =>
      Effect.gen(function*() {
        const { env, runId, worker } = yield* runningRun
        const res = yield* appendLogs(worker, runId, { lines: [{ stream: "stdout", text: "a\u0000b\uD800c" }] })
        expect(res.status).toBe(200)
        const { lines: stored } = yield* readAll(runId, env.user.cookie)
        expect(stored.map((l) => l.text)).toEqual(["a\uFFFDb\uFFFDc"])
      }))
  })

  describe("GET /runs/{id}/logs", () => {
    it.effect("a user who is no member of the run's environment gets 404; a malformed id 404; bad paging 400", () =>
      Effect.gen(function*() {
        const { env, runId } = yield* runningRun
        const stranger = yield* registerUser("stranger")
        expect((yield* call("GET", `/api/v1/runs/${runId}/logs`, { cookie: stranger.cookie })).status).toBe(404)
        expect((yield* call("GET", `/api/v1/runs/not-a-run/logs`, { cookie: env.user.cookie })).status).toBe(404)
        expect((yield* call("GET", `/api/v1/runs/${runId}/logs`)).status).toBe(401)
        const bad = yield* call("GET", `/api/v1/runs/${runId}/logs?after=-1&limit=0`, { cookie: env.user.cookie })
        expect(bad.status).toBe(400)
        expect(Object.keys(bad.body.details.fieldErrors).sort()).toEqual(["after", "limit"])
      }))

    it.scoped("follow=1 streams lines live, resumes after Last-Event-ID with no gap or duplicate, and ends with an end event", () =>
      Effect.gen(function*() {
        const { env, runId, worker } = yield* runningRun
        yield* appendLogs(worker, runId, { lines: lines(1, 3) })
        const first = yield* openSse(`/api/v1/runs/${runId}/logs?follow=1`, { cookie: env.user.cookie })
        expect(first.status).toBe(200)
        expect(first.headers["content-type"]).toContain("text/event-stream")
        yield* first.until((text) => parseEvents(text).length === 3, "the stored lines")
        yield* appendLogs(worker, runId, { lines: lines(4, 6, "stderr") })
        yield* first.until((text) => parseEvents(text).length === 6, "the new lines, live")
        const seen = parseEvents(first.text())
        expect(seen.map((e) => [e.event, e.id, e.data.seq, e.data.stream])).toEqual([
          ["line", "1", 1, "stdout"], ["line", "2", 2, "stdout"], ["line", "3", 3, "stdout"],
          ["line", "4", 4, "stderr"], ["line", "5", 5, "stderr"], ["line", "6", 6, "stderr"]
        ])
        expect(first.ended()).toBe(false)

        // Reconnecting with the last id it saw (as EventSource does), through the Accept header.
        yield* appendLogs(worker, runId, { lines: lines(7, 9) })
        const again = yield* openSse(`/api/v1/runs/${runId}/logs`, {
          cookie: env.user.cookie,
          accept: "text/event-stream",
          "last-event-id": "6"
        })
        yield* again.until((text) => parseEvents(text).length === 3, "the lines after 6")
        expect((yield* step(worker, runId, "complete", { status: "succeeded" })).status).toBe(200)
        yield* again.until((text) => text.includes("event: end"), "the end event")
        const resumed = parseEvents(again.text())
        expect(resumed.map((e) => e.id ?? e.event)).toEqual(["7", "8", "9", "end"])
        expect(resumed.at(-1)!.data).toEqual({ status: "succeeded" })
        yield* again.until(() => again.ended(), "the stream's close")
        yield* first.until((text) => text.includes("event: end"), "the first follower's end")
      }))
  })

  describe("RUN_LOG_MAX_BYTES and retention", () => {
    it.effect("a 16 MiB + 1 byte log keeps 16 MiB and one marker line saying what was dropped", () =>
      Effect.gen(function*() {
        const { env, runId, worker } = yield* runningRun
        // Each line costs its bytes and a newline: 1,000 bytes. 16 MiB is 16,777 such lines and 216 bytes.
        const max = 16 * 1024 * 1024
        const text = "x".repeat(999)
        const full = Math.floor(max / 1000)
        let sent = 0
        while (sent < full) {
          const n = Math.min(1000, full - sent)
          const res = yield* appendLogs(worker, runId, { lines: Array.from({ length: n }, () => ({ stream: "stdout", text })) })
          expect(res.status).toBe(200)
          sent += n
        }
        // 216 bytes left: a 216-byte line (215 and its newline) fills the log exactly; one more byte is over.
        const last = yield* appendLogs(worker, runId, { lines: [{ stream: "stdout", text: "y".repeat(215) }, { stream: "stderr", text: "" }] })
        expect(last.body).toEqual({ stored: 1, duplicates: 0, dropped: 1 })
        const { lines: stored } = yield* readAll(runId, env.user.cookie)
        const logLines = stored.slice(0, -1)
        const bytes = logLines.reduce((n, l) => n + Buffer.byteLength(l.text, "utf8") + 1, 0)
        expect(bytes).toBe(max)
        expect(stored.length).toBe(full + 2)
        const marker = stored.at(-1)!
        expect(marker.stream).toBe("stderr")
        expect(marker.text).toMatch(/RUN_LOG_MAX_BYTES is 16777216 bytes; 1 more bytes in 1 line were dropped/)
        // Past the limit the rest is counted, not stored; the one marker says the new total.
        const more = yield* appendLogs(worker, runId, { lines: lines(1, 10) })
        expect(more.body).toEqual({ stored: 0, duplicates: 0, dropped: 10 })
        const after = yield* call("GET", `/api/v1/runs/${runId}/logs?after=${marker.seq - 1}`, { cookie: env.user.cookie })
        expect(after.body.items).toHaveLength(1)
        expect(after.body.items[0].text).toMatch(/; 72 more bytes in 11 lines were dropped/)
      }), 120_000)

    it.effect("retention deletes a run's log with the run", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const retention = yield* Retention
        const { env, runId, worker } = yield* runningRun
        const kept = yield* startRun(env, (yield* createTrigger(env)).id, worker)
        yield* appendLogs(worker, runId, { lines: lines(1, 5) })
        yield* appendLogs(worker, kept, { lines: lines(1, 5) })
        yield* step(worker, runId, "complete", { status: "succeeded" })
        yield* step(worker, kept, "complete", { status: "succeeded" })
        const old = new Date(Date.now() - 40 * 86_400_000)
        yield* sql`UPDATE runs SET ended_at = ${old} WHERE id = ${runId}`.pipe(Effect.orDie)
        yield* sql`DELETE FROM webhook_outbox WHERE run_id IN (${runId}, ${kept})`.pipe(Effect.orDie)
        yield* retention.sweep()
        const left = yield* sql<{ run_id: string; n: number }>`
          SELECT run_id, sum(cardinality(texts))::int AS n FROM run_log_chunks WHERE run_id IN (${runId}, ${kept}) GROUP BY run_id`.pipe(Effect.orDie)
        expect(left).toEqual([{ run_id: kept, n: 5 }])
        const state = yield* sql`SELECT run_id FROM run_log_state WHERE run_id = ${runId}`.pipe(Effect.orDie)
        expect(state).toEqual([])
      }))
  })
})
