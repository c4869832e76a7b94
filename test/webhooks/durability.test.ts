import { expect, layer as withLayer } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { uuidv7 } from "../../src/Crypto/Ids.js"
import { DeliveriesRepo } from "../../src/Webhooks/DeliveriesRepo.js"
import { deliveryOf, eventually, outboxOf, receiver, seedTrigger, servicesLayer, startWorker, terminalRun } from "./support.js"

const secret = "a-very-secret-webhook-key"

withLayer(servicesLayer(), { excludeTestServices: true })("webhook delivery durability", (it) => {
  it.scoped("a restart during the backoff resumes with the saved attempt count at the saved time", () =>
    Effect.gen(function*() {
      const rx = yield* receiver
      rx.script("/restart", [500, 200])
      const { triggerId } = yield* seedTrigger(rx.url("/restart"), secret)
      const runId = yield* terminalRun(triggerId)
      // First instance: makes attempt 1 (500) and is stopped while it waits out the 1 s backoff.
      yield* Effect.scoped(Effect.gen(function*() {
        yield* startWorker()
        yield* eventually("attempt 1 saved", outboxOf(runId), (row) => row?.attempts === 1)
      }))
      const saved = yield* outboxOf(runId)
      expect(saved).toMatchObject({ attempts: 1, lease_owner: null, last_status_code: 500 })
      expect(yield* deliveryOf(runId)).toBeUndefined()
      // Second instance: picks the row up when it is due and makes attempt 2.
      yield* startWorker()
      const record = yield* eventually("record", deliveryOf(runId), (d) => d !== undefined)
      expect(record).toMatchObject({ outcome: "delivered", status_code: 200, attempt_count: 2 })
      const at = rx.received("/restart").map((r) => r.at)
      expect(at).toHaveLength(2)
      expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(950)
      expect(yield* outboxOf(runId)).toBeUndefined()
    }), { timeout: 20_000 })

  it.scoped("outcomes written together: each row still leased by its owner is recorded once, another owner's row is left alone", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const repo = yield* DeliveriesRepo
      const rx = yield* receiver
      const { triggerId } = yield* seedTrigger(rx.url("/batch"), secret)
      const ids = [yield* terminalRun(triggerId), yield* terminalRun(triggerId), yield* terminalRun(triggerId)]
      const leased = yield* repo.lease("owner-a", 10, "30 seconds")
      expect(leased.map((r) => r.run_id).sort()).toEqual([...ids].sort())
      // The third row has since been taken over by another instance.
      yield* sql`UPDATE webhook_outbox SET lease_owner = 'owner-b' WHERE run_id = ${ids[2]!}`
      const byId = new Map(leased.map((r) => [r.run_id, r]))
      const outcome = (attempts: number) => ({ outcome: "delivered" as const, statusCode: 200, responseBody: "ok", attempts, error: null })
      const mine = yield* repo.finalizeMany("owner-a", ids.map((id, i) => ({ row: byId.get(id)!, final: outcome(i + 1) })))
      expect([...mine].sort()).toEqual([ids[0]!, ids[1]!].sort())
      expect(yield* deliveryOf(ids[0]!)).toMatchObject({ outcome: "delivered", attempt_count: 1, response_body: "ok" })
      expect(yield* deliveryOf(ids[1]!)).toMatchObject({ outcome: "delivered", attempt_count: 2 })
      expect(yield* deliveryOf(ids[2]!)).toBeUndefined()
      expect(yield* outboxOf(ids[2]!)).toMatchObject({ lease_owner: "owner-b" })
      // Written again (a retried batch): still one record per run.
      const again = yield* repo.finalizeMany("owner-a", [{ row: byId.get(ids[0]!)!, final: outcome(1) }])
      expect(again.size).toBe(0)
      const records = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM webhook_deliveries WHERE run_id IN ${sql.in(ids)}`
      expect(records[0]!.n).toBe(2)
    }).pipe(Effect.orDie))

  it.scoped("a crashed instance's lease is taken over when it expires, keeping the attempt count", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const rx = yield* receiver
      const { triggerId } = yield* seedTrigger(rx.url("/crash"), secret)
      const runId = yield* terminalRun(triggerId)
      // What a crash mid-backoff leaves: two attempts saved, a lease nobody will release.
      yield* sql`
        UPDATE webhook_outbox SET attempts = 2, last_status_code = 500, last_error = 'HTTP 500',
          lease_owner = 'crashed-instance', lease_until = now() + interval '1 second', next_attempt_at = now()
        WHERE run_id = ${runId}`
      const leasedAt = Date.now()
      yield* startWorker({ sweepInterval: "200 millis" })
      const record = yield* eventually("record", deliveryOf(runId), (d) => d !== undefined)
      expect(record).toMatchObject({ outcome: "delivered", status_code: 200, attempt_count: 3 })
      const received = rx.received("/crash")
      expect(received).toHaveLength(1)
      expect(received[0]!.at - leasedAt).toBeGreaterThanOrEqual(900)
    }), { timeout: 20_000 })

  it.scoped("a row whose attempts were all made before a crash is recorded as failed without another request", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const rx = yield* receiver
      const { triggerId } = yield* seedTrigger(rx.url("/spent"), secret)
      const runId = yield* terminalRun(triggerId)
      yield* sql`
        UPDATE webhook_outbox SET attempts = 3, last_status_code = 503, last_response_body = 'down', last_error = 'HTTP 503'
        WHERE run_id = ${runId}`
      yield* startWorker()
      const record = yield* eventually("record", deliveryOf(runId), (d) => d !== undefined)
      expect(record).toMatchObject({
        outcome: "failed",
        status_code: 503,
        response_body: "down",
        attempt_count: 3,
        error_message: "HTTP 503"
      })
      expect(rx.received("/spent")).toHaveLength(0)
    }))

  it.scoped("1,000 terminal runs, two instances: exactly 1,000 records, every run POSTed, no row worked on twice", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const rx = yield* receiver
      const { triggerId, environmentId } = yield* seedTrigger(rx.url("/bulk"), secret)
      const ids = Array.from({ length: 1000 }, () => uuidv7())
      yield* sql`
        INSERT INTO runs ${
        sql.insert(ids.map((id) => ({
          id,
          trigger_id: triggerId,
          environment_id: environmentId,
          status: "succeeded",
          timeout_seconds: 3600,
          heartbeat_timeout_seconds: 30,
          max_retries: 0,
          ended_at: new Date()
        })))
      }`
      yield* sql`
        INSERT INTO webhook_outbox (run_id, trigger_id, url, secret_enc, payload)
        SELECT r.id, r.trigger_id, t.webhook_url, t.webhook_secret_enc,
               json_build_object('runId', r.id, 'triggerId', r.trigger_id, 'status', r.status)::text
        FROM runs r JOIN triggers t ON t.id = r.trigger_id WHERE r.trigger_id = ${triggerId}`
      yield* startWorker()
      yield* startWorker()
      const count = sql<{ n: string | number }>`SELECT count(*) AS n FROM webhook_deliveries WHERE trigger_id = ${triggerId}`.pipe(
        Effect.map((rows) => Number(rows[0]!.n))
      )
      yield* eventually("1000 records", count, (n) => n >= 1000, 60_000)
      const records = yield* sql<{ run_id: string; outcome: string; attempt_count: number }>`
        SELECT run_id, outcome, attempt_count FROM webhook_deliveries WHERE trigger_id = ${triggerId}`
      expect(records).toHaveLength(1000)
      expect(new Set(records.map((r) => r.run_id))).toEqual(new Set(ids))
      expect(records.every((r) => r.outcome === "delivered")).toBe(true)
      const posted = rx.received("/bulk").map((r) => JSON.parse(r.raw.toString()).runId as string)
      // Every run was POSTed; repeats only come from attempts the records account for (a
      // receiver slowed by this busy test process can make an attempt time out and be retried),
      // never from two instances working on the same row.
      expect(new Set(posted).size).toBe(1000)
      const attempts = records.reduce((n, r) => n + r.attempt_count, 0)
      expect(posted.length).toBeLessThanOrEqual(attempts)
      const left = yield* sql<{ n: string | number }>`SELECT count(*) AS n FROM webhook_outbox WHERE trigger_id = ${triggerId}`
      expect(Number(left[0]!.n)).toBe(0)
    }), { timeout: 90_000 })
})
