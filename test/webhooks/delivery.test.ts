import { describe, expect, layer as withLayer } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { payloadOf, type TerminalRun } from "../../src/Webhooks/Payload.js"
import { verify } from "../../src/Webhooks/Signer.js"
import {
  deliveryOf,
  eventually,
  outboxOf,
  receiver,
  seedTrigger,
  servicesLayer,
  setSecret,
  startWorker,
  terminalRun
} from "./support.js"

const secret = "a-very-secret-webhook-key"

withLayer(servicesLayer(), { excludeTestServices: true })("webhook delivery", (it) => {
  it.scoped("POSTs the exact payload bytes, signed over the raw body, with the contract's headers", () =>
    Effect.gen(function*() {
      const rx = yield* receiver
      const { triggerId } = yield* seedTrigger(rx.url("/sig"), secret)
      yield* startWorker()
      const runId = yield* terminalRun(triggerId, "failed")
      const record = yield* eventually("delivery record", deliveryOf(runId), (d) => d !== undefined)
      expect(record).toMatchObject({ outcome: "delivered", status_code: 200, attempt_count: 1, error_message: null })
      expect(record!.response_body).toBe("reply 200")
      const [req] = rx.received("/sig")
      expect(req).toBeDefined()
      expect(verify(secret, req!.raw, req!.headers["x-service-signature"] as string)).toBe(true)
      expect(verify("another-secret-of-16+", req!.raw, req!.headers["x-service-signature"] as string)).toBe(false)
      expect(req!.headers["content-type"]).toBe("application/json")
      expect(req!.headers["user-agent"]).toBe("pipeline-trigger-service")
      expect(req!.headers["idempotency-key"]).toBeUndefined()
      const body = JSON.parse(req!.raw.toString("utf8"))
      expect(Object.keys(body).sort()).toEqual(
        ["costUsd", "durationMs", "endedAt", "errorMessage", "faultClass", "runId", "shortMessage", "status", "triggerId"]
      )
      expect(body).toMatchObject({
        runId,
        triggerId,
        status: "failed",
        durationMs: 1234,
        shortMessage: "hello",
        errorMessage: "boom",
        costUsd: "0.25",
        faultClass: "client"
      })
      expect(new Date(body.endedAt).toISOString()).toBe(body.endedAt)
      expect(yield* outboxOf(runId)).toBeUndefined()
    }))

  it.scoped("sends no signature header when the trigger has no secret", () =>
    Effect.gen(function*() {
      const rx = yield* receiver
      const { triggerId } = yield* seedTrigger(rx.url("/nosecret"), null)
      yield* startWorker()
      const runId = yield* terminalRun(triggerId)
      yield* eventually("delivery record", deliveryOf(runId), (d) => d?.outcome === "delivered")
      expect(rx.received("/nosecret")[0]!.headers["x-service-signature"]).toBeUndefined()
    }))

  it.scoped("retries 5xx/408/429/network errors with 1 s and 4 s backoff; fails other 4xx and 3xx at once", () =>
    Effect.gen(function*() {
      const rx = yield* receiver
      rx.script("/a", [500, 500, 200])
      rx.script("/b", [{ status: 503, body: "down for maintenance" }])
      rx.script("/c", [{ status: 400, body: "bad payload" }])
      rx.script("/d", [408, 200])
      rx.script("/e", [429, 200])
      rx.script("/f", [{ status: 301, headers: { location: "/target" } }])
      rx.script("/h", [{ status: 200, body: "é".repeat(3000) }])
      yield* startWorker()
      const scenario = (path: string) =>
        Effect.flatMap(seedTrigger(rx.url(path), secret), ({ triggerId }) => terminalRun(triggerId))
      const closed = yield* seedTrigger("http://127.0.0.1:1/refused", secret)
      const runs = {
        a: yield* scenario("/a"),
        b: yield* scenario("/b"),
        c: yield* scenario("/c"),
        d: yield* scenario("/d"),
        e: yield* scenario("/e"),
        f: yield* scenario("/f"),
        h: yield* scenario("/h"),
        i: yield* terminalRun(closed.triggerId)
      }
      const records = yield* eventually(
        "every delivery record",
        Effect.all(Object.fromEntries(Object.entries(runs).map(([k, id]) => [k, deliveryOf(id)]))),
        (all) => Object.values(all).every((d) => d !== undefined),
        20_000
      )
      // 500, 500, 200: delivered on the third attempt, ~1 s then ~4 s apart.
      expect(records.a).toMatchObject({ outcome: "delivered", status_code: 200, attempt_count: 3, error_message: null })
      const a = rx.received("/a").map((r) => r.at)
      expect(a).toHaveLength(3)
      // The exact delays are retry.test.ts's (TestClock); here the real loop keeps
      // each gap at least its delay and short of the next one's (4 s, then 16 s),
      // loose enough for a machine at load 16.
      expect(a[1]! - a[0]!).toBeGreaterThanOrEqual(950)
      expect(a[1]! - a[0]!).toBeLessThan(3_500)
      expect(a[2]! - a[1]!).toBeGreaterThanOrEqual(3950)
      expect(a[2]! - a[1]!).toBeLessThan(12_000)
      // Always 503: failed after 3 attempts, with the last attempt's status, body and error.
      expect(records.b).toMatchObject({
        outcome: "failed",
        status_code: 503,
        attempt_count: 3,
        response_body: "down for maintenance",
        error_message: "HTTP 503"
      })
      expect(rx.received("/b")).toHaveLength(3)
      // 400: permanent, one attempt.
      expect(records.c).toMatchObject({ outcome: "failed", status_code: 400, attempt_count: 1, response_body: "bad payload" })
      expect(rx.received("/c")).toHaveLength(1)
      // 408 and 429 are retried.
      expect(records.d).toMatchObject({ outcome: "delivered", status_code: 200, attempt_count: 2 })
      expect(records.e).toMatchObject({ outcome: "delivered", status_code: 200, attempt_count: 2 })
      // 301: failed at once, and the redirect is not followed.
      expect(records.f).toMatchObject({ outcome: "failed", status_code: 301, attempt_count: 1 })
      expect(rx.received("/target")).toHaveLength(0)
      // The stored body is cut to 1024 characters.
      expect(records.h!.response_body).toBe("é".repeat(1024))
      // Connection refused: a network error, retried, then failed.
      expect(records.i).toMatchObject({ outcome: "failed", status_code: null, attempt_count: 3 })
      expect(records.i!.error_message).toMatch(/^network error: ECONNREFUSED/)
    }), { timeout: 30_000 })

  it.scoped("a receiver that never answers: every attempt times out, then failed", () =>
    Effect.gen(function*() {
      const rx = yield* receiver
      rx.script("/hang", ["hang"])
      const { triggerId } = yield* seedTrigger(rx.url("/hang"), secret)
      yield* startWorker({ attemptTimeout: "500 millis" })
      const runId = yield* terminalRun(triggerId)
      const record = yield* eventually("record", deliveryOf(runId), (d) => d !== undefined)
      expect(record).toMatchObject({ outcome: "failed", status_code: null, attempt_count: 3, response_body: null })
      expect(record!.error_message).toBe("timed out after 500ms")
      expect(rx.received("/hang")).toHaveLength(3)
    }), { timeout: 20_000 })

  it.scoped("a run signs with the secret of when it fired; the new secret applies to later runs", () =>
    Effect.gen(function*() {
      const rx = yield* receiver
      rx.script("/rotate", ["hang", 200])
      const { triggerId } = yield* seedTrigger(rx.url("/rotate"), "the-old-secret-0123456789")
      // The first run fired before the change and is still being delivered (its first attempt hangs).
      const first = yield* terminalRun(triggerId)
      yield* startWorker({ attemptTimeout: "1 second" })
      yield* eventually("first attempt", Effect.sync(() => rx.received("/rotate").length), (n) => n >= 1)
      yield* setSecret(triggerId, "the-new-secret-9876543210")
      const second = yield* terminalRun(triggerId)
      yield* eventually("both records", Effect.all([deliveryOf(first), deliveryOf(second)]), (ds) => ds.every((d) => d?.outcome === "delivered"))
      const byRun = (runId: string) => rx.received("/rotate").filter((r) => JSON.parse(r.raw.toString()).runId === runId)
      for (const r of byRun(first)) {
        expect(verify("the-old-secret-0123456789", r.raw, r.headers["x-service-signature"] as string)).toBe(true)
      }
      for (const r of byRun(second)) {
        expect(verify("the-new-secret-9876543210", r.raw, r.headers["x-service-signature"] as string)).toBe(true)
      }
      expect(byRun(first).length).toBeGreaterThanOrEqual(2)
      expect(byRun(second).length).toBeGreaterThanOrEqual(1)
    }), { timeout: 20_000 })

  it.scoped("the body is rendered from the terminal run at delivery; a row that carries its own body is sent as it is", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const rx = yield* receiver
      const { triggerId } = yield* seedTrigger(rx.url("/fixed"), secret)
      const runId = yield* terminalRun(triggerId, "timed_out")
      const row = yield* outboxOf(runId)
      expect(row).toBeDefined()
      expect(row!.payload).toBeNull()
      // A row written before bodies were rendered at lease time keeps its stored body.
      const legacyId = yield* terminalRun(triggerId, "succeeded")
      yield* sql`UPDATE webhook_outbox SET payload = '{"stored":"body"}' WHERE run_id = ${legacyId}`
      yield* startWorker()
      yield* eventually("records", Effect.all([deliveryOf(runId), deliveryOf(legacyId)]), (ds) => ds.every((d) => d !== undefined))
      const run = (yield* sql<TerminalRun>`SELECT * FROM runs WHERE id = ${runId}`)[0]!
      const bodies = rx.received("/fixed").map((r) => r.raw.toString("utf8"))
      const rendered = bodies.find((b) => b.includes(runId))!
      expect(rendered).toBe(payloadOf(run))
      expect(JSON.parse(rendered)).toEqual({
        runId,
        triggerId,
        status: "timed_out",
        durationMs: 1234,
        shortMessage: "hello",
        errorMessage: "boom",
        costUsd: "0.25",
        faultClass: "client",
        endedAt: run.ended_at!.toISOString()
      })
      expect(bodies).toContain(`{"stored":"body"}`)
    }))

  describe("SSRF guard at delivery time", () => {
    it.scoped("a private URL is failed without any request when private networks are not allowed", () =>
      Effect.gen(function*() {
        const rx = yield* receiver
        const literal = yield* seedTrigger(rx.url("/private"), secret)
        const named = yield* seedTrigger(`http://localhost:${rx.port}/private-name`, secret)
        yield* startWorker({}, { webhookAllowPrivateNetworks: false })
        const r1 = yield* terminalRun(literal.triggerId)
        const r2 = yield* terminalRun(named.triggerId)
        const [d1, d2] = yield* eventually("records", Effect.all([deliveryOf(r1), deliveryOf(r2)]), (ds) => ds.every((d) => d !== undefined))
        for (const d of [d1!, d2!]) {
          expect(d).toMatchObject({ outcome: "failed", status_code: null, attempt_count: 1 })
          expect(d.error_message).toBe("webhook URL resolves to a non-public address")
        }
        expect(rx.received()).toHaveLength(0)
      }))
  })
})
