import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import {
  cleanupsAfterAll,
  databaseAndReceiver,
  type Receiver,
  request,
  type ServiceProcess,
  sleep,
  startService,
  type TestDatabase,
  waitUntil
} from "../support/Process.js"
import { setupTenant, type Tenant } from "../reliability/load.js"

/**
 * Cancel races across two service processes on one Postgres database: the
 * cancel arrives on instance A while the worker's complete, a second cancel or
 * the execution time-out happens on (or is supervised by) instance B. The row
 * lock of the conditional UPDATEs must order them so that every run ends
 * exactly once, with one timeline row for its end, one webhook delivery (as the
 * receiver counts them, not only as the database says), and one `run.cancelled`
 * audit row per cancel that took effect. Many runs race at once, so the
 * interleavings differ from run to run.
 */

const cleanup = cleanupsAfterAll()

interface Cluster {
  readonly db: TestDatabase
  readonly a: ServiceProcess
  readonly b: ServiceProcess
  readonly receiver: Receiver
}

let started: Promise<Cluster> | undefined
const cluster = () =>
  started ??= (async () => {
    const { db, env, receiver } = await databaseAndReceiver(cleanup, "pts-cancel-", {
      // Longer than any test takes to send its completes (each one the acknowledgement of a cancel request, so 200):
      // a grace period ending first would answer a complete 409 on a loaded machine. The time-out race does not
      // depend on it (a deadline one second away comes before the grace period's end).
      CANCEL_GRACE_SECONDS: "120"
    })
    const a = await startService(env)
    cleanup(() => a.stop())
    const b = await startService(env)
    cleanup(() => b.stop())
    return { db, a, b, receiver }
  })()

const ok = (reply: { status: number; body: any }, what: string) => {
  if (reply.status < 200 || reply.status > 299) throw new Error(`${what}: HTTP ${reply.status} ${JSON.stringify(reply.body)}`)
  return reply.body
}

/** A fresh environment with one worker (seen by a poll, so runs go to it) and a trigger posting to the receiver. */
const prepare = async (c: Cluster, trigger: Record<string, unknown>) => {
  const tenant = await setupTenant(c.a.url, c.receiver.url, 1)
  const triggerId = ok(
    await request(c.a.url, "POST", `/api/v1/environments/${tenant.environmentId}/triggers`, {
      bearer: tenant.apiKey,
      body: { name: "race", webhookUrl: c.receiver.url, webhookSecret: "race-webhook-secret-0123456789", maxRetries: 0, ...trigger }
    }),
    "trigger"
  ).id as string
  const worker = tenant.workers[0]!
  ok(await request(c.b.url, "GET", `/api/v1/workers/${worker.id}/poll`, { bearer: worker.token }), "first poll")
  return { tenant, triggerId, worker }
}

/** Requests `n` runs, alternating between the instances. */
const requestRuns = async (c: Cluster, tenant: Tenant, triggerId: string, n: number) => {
  const ids: Array<string> = []
  for (let i = 0; i < n; i++) {
    const target = i % 2 === 0 ? c.a.url : c.b.url
    ids.push(ok(await request(target, "POST", `/api/v1/triggers/${triggerId}/run`, { bearer: tenant.apiKey }), "run").id)
  }
  return ids
}

/** Claims and starts the worker's assigned runs through B until all of `runIds` run; answers when each started. */
const startAll = async (c: Cluster, worker: Tenant["workers"][number], runIds: ReadonlyArray<string>) => {
  const startedAt = new Map<string, number>()
  const deadline = Date.now() + 30_000
  while (startedAt.size < runIds.length) {
    if (Date.now() > deadline) throw new Error(`only ${startedAt.size} of ${runIds.length} runs started`)
    const polled = ok(
      await request(c.b.url, "GET", `/api/v1/workers/${worker.id}/poll?wait=1&claim=true&start=true&max=100`, {
        bearer: worker.token
      }),
      "poll"
    )
    for (const run of polled.runs) startedAt.set(run.id, Date.parse(run.startedAt))
  }
  return startedAt
}

const cancelOn = (target: string, tenant: Tenant, runId: string) =>
  request(target, "POST", `/api/v1/runs/${runId}/cancel`, { bearer: tenant.apiKey })

const completeOn = (target: string, worker: Tenant["workers"][number], runId: string) =>
  request(target, "POST", `/api/v1/workers/${worker.id}/runs/${runId}/complete`, {
    bearer: worker.token,
    body: { status: "succeeded" }
  })

const terminalStatuses = "('succeeded', 'failed', 'timed_out', 'cancelled')"

interface Outcome {
  readonly status: string
  readonly reasons: ReadonlyArray<string>
  readonly terminalEvents: number
  readonly deliveries: number
  readonly cancelAudits: number
  readonly received: ReadonlyArray<string>
}

/**
 * Waits until every run ended and its webhook reached the receiver (and the
 * outbox is empty), lets any late duplicate arrive, then reads each run back.
 */
const outcomes = async (c: Cluster, runIds: ReadonlyArray<string>): Promise<Map<string, Outcome>> => {
  const list = runIds.map((id) => `'${id}'`).join(",")
  const settled = await waitUntil(async () => {
    const [row] = await c.db.query<{ active: string; outbox: string }>(
      `SELECT (SELECT count(*) FROM runs WHERE id IN (${list}) AND status NOT IN ${terminalStatuses})::text AS active,
              (SELECT count(*) FROM webhook_outbox WHERE run_id IN (${list}))::text AS outbox`
    )
    return row!.active === "0" && row!.outbox === "0" && runIds.every((id) => c.receiver.received.has(id))
  }, 60_000, 200)
  expect(settled, "every run ended and was delivered").toBe(true)
  // A second delivery would come within moments of the first.
  await sleep(1500)
  const rows = await c.db.query<{ id: string; status: string; reasons: Array<string>; terminal_events: string; deliveries: string; audits: string }>(
    `SELECT r.id, r.status,
       ARRAY(SELECT e.reason FROM run_events e WHERE e.run_id = r.id ORDER BY e.id) AS reasons,
       (SELECT count(*) FROM run_events e WHERE e.run_id = r.id AND e.status IN ${terminalStatuses})::text AS terminal_events,
       (SELECT count(*) FROM webhook_deliveries d WHERE d.run_id = r.id)::text AS deliveries,
       (SELECT count(*) FROM audit_log a WHERE a.target_id = r.id AND a.action = 'run.cancelled')::text AS audits
     FROM runs r WHERE r.id IN (${list})`
  )
  return new Map(rows.map((row) => [row.id, {
    status: row.status,
    reasons: row.reasons,
    terminalEvents: Number(row.terminal_events),
    deliveries: Number(row.deliveries),
    cancelAudits: Number(row.audits),
    received: c.receiver.received.get(row.id) ?? []
  }]))
}

/** Exactly one end per run: one terminal timeline row, one delivery record, one POST received, carrying the final status. */
const expectEndedOnce = (outcome: Outcome | undefined, runId: string) => {
  expect(outcome, runId).toBeDefined()
  expect({ runId, terminalEvents: outcome!.terminalEvents, deliveries: outcome!.deliveries, received: outcome!.received }).toEqual({
    runId,
    terminalEvents: 1,
    deliveries: 1,
    received: [outcome!.status]
  })
}

const count = (values: Iterable<string>) => {
  const counts: Record<string, number> = {}
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1
  return counts
}

describe("cancel races on two instances of one Postgres database", () => {
  it.live("a cancel on A racing the worker's complete on B, for many runs at once: one end, one webhook each; answers agree", () =>
    Effect.promise(async () => {
      const c = await cluster()
      const { tenant, triggerId, worker } = await prepare(c, {})
      const runIds = await requestRuns(c, tenant, triggerId, 40)
      await startAll(c, worker, runIds)

      const answers = await Promise.all(runIds.map(async (runId, i) => {
        // Staggered a little, so that either side wins some of the races.
        if (i % 3 === 1) await sleep(2)
        const [cancelled, completed] = await Promise.all([
          cancelOn(c.a.url, tenant, runId),
          (async () => {
            if (i % 3 === 2) await sleep(2)
            return completeOn(c.b.url, worker, runId)
          })()
        ])
        return { runId, cancelled, completed }
      }))
      const ended = await outcomes(c, runIds)

      for (const { runId, cancelled, completed } of answers) {
        const outcome = ended.get(runId)
        expectEndedOnce(outcome, runId)
        // The complete is always accepted: after a cancel request it is the worker's acknowledgement.
        expect(completed.status, runId).toBe(200)
        expect(completed.body.run.status).toBe(outcome!.status)
        if (cancelled.status === 200) {
          expect(outcome).toMatchObject({ status: "cancelled", cancelAudits: 1 })
          expect(outcome!.reasons.at(-1)).toBe("cancelled")
        } else {
          // The complete came first: the cancel found an ended run.
          expect(cancelled.status, runId).toBe(409)
          expect(outcome).toMatchObject({ status: "succeeded", cancelAudits: 0 })
          expect(outcome!.reasons.at(-1)).toBe("completed")
        }
      }
      await Effect.runPromise(Effect.logInfo("cancel vs complete").pipe(
        Effect.annotateLogs(count([...ended.values()].map((o) => o.status)))
      ))
    }), { timeout: 180_000 })

  it.live("two cancels of the same run on A and on B: one run.cancelled audit row, one end, one webhook", () =>
    Effect.promise(async () => {
      const c = await cluster()
      const { tenant, triggerId, worker } = await prepare(c, {})
      const running = await requestRuns(c, tenant, triggerId, 15)
      await startAll(c, worker, running)
      // Assigned to the worker and never claimed: ended by the cancel itself.
      const assigned = await requestRuns(c, tenant, triggerId, 15)

      const answers = await Promise.all([...running, ...assigned].map(async (runId) => {
        const both = await Promise.all([cancelOn(c.a.url, tenant, runId), cancelOn(c.b.url, tenant, runId)])
        return { runId, statuses: both.map((r) => r.status).sort() }
      }))
      for (const { runId, statuses } of answers) {
        // An assigned run ends at the first cancel (the second finds it ended: 409); a running
        // run's second cancel finds the request already made and answers the run unchanged.
        expect({ runId, statuses }).toEqual({ runId, statuses: assigned.includes(runId) ? [200, 409] : [200, 200] })
      }
      // The worker learns of the requests from its poll and acknowledges each by completing it, on B.
      const polled = ok(await request(c.b.url, "GET", `/api/v1/workers/${worker.id}/poll`, { bearer: worker.token }), "poll")
      expect([...polled.cancelRequested].sort()).toEqual([...running].sort())
      for (const runId of running) expect((await completeOn(c.b.url, worker, runId)).status).toBe(200)

      const ended = await outcomes(c, [...running, ...assigned])
      for (const runId of [...running, ...assigned]) {
        const outcome = ended.get(runId)
        expectEndedOnce(outcome, runId)
        expect(outcome).toMatchObject({ status: "cancelled", cancelAudits: 1 })
        expect(outcome!.reasons.at(-1)).toBe("cancelled")
      }
    }), { timeout: 180_000 })

  it.live("a cancel on A racing the execution time-out (supervised on either instance): one end, one webhook; answers agree", () =>
    Effect.promise(async () => {
      const c = await cluster()
      // timeoutSeconds 1: each run's execution deadline passes one second after it starts.
      const { tenant, triggerId, worker } = await prepare(c, { timeoutSeconds: 1, heartbeatTimeoutSeconds: 5 })
      const runIds = await requestRuns(c, tenant, triggerId, 30)
      const startedAt = await startAll(c, worker, runIds)

      const answers = await Promise.all(runIds.map(async (runId, i) => {
        // Cancels spread from 400 ms before the deadline to 400 ms after it.
        const at = startedAt.get(runId)! + 1000 + ((i % 9) - 4) * 100
        await sleep(Math.max(0, at - Date.now()))
        return { runId, cancelled: await cancelOn(c.a.url, tenant, runId) }
      }))
      const ended = await outcomes(c, runIds)

      for (const { runId, cancelled } of answers) {
        const outcome = ended.get(runId)
        expectEndedOnce(outcome, runId)
        if (cancelled.status === 200) {
          // The request came first: the passed deadline (or the grace period) ends it cancelled, not timed out.
          expect(outcome).toMatchObject({ status: "cancelled", cancelAudits: 1 })
          expect(outcome!.reasons.at(-1)).toBe("cancelled")
        } else {
          expect(cancelled.status, runId).toBe(409)
          expect(outcome).toMatchObject({ status: "timed_out", cancelAudits: 0 })
          expect(outcome!.reasons.at(-1)).toBe("execution_timeout")
        }
      }
      await Effect.runPromise(Effect.logInfo("cancel vs time-out").pipe(
        Effect.annotateLogs(count([...ended.values()].map((o) => o.status)))
      ))
    }), { timeout: 180_000 })
})
