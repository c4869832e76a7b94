import { cpuMeter, type CpuPerRun } from "../lib/cpu.js"
import { execute, query } from "../lib/database.js"
import { insertWorkers } from "../lib/fleet.js"
import { type Client, expectStatus } from "../lib/http.js"
import type { Service } from "../lib/server.js"
import { createTrigger, setupTenant } from "../lib/setup.js"
import { sleep, summarize, type Summary } from "../lib/stats.js"

export interface DelayedFigures {
  readonly runs: number
  readonly dueTogether: number
  readonly idleSeconds: number
  readonly insertSeconds: number
  /** CPU milliseconds per second of idle time (service / Postgres / bench), without and with the delayed runs waiting. */
  readonly idleCpuMsPerSecondBefore: CpuPerRun
  readonly idleCpuMsPerSecondAfter: CpuPerRun
  /** The service's idle CPU with the runs waiting, in % of one core (the bound: 1 %). */
  readonly idleCpuPercentOfCore: number
  /** How late the runs due in one second were placed (assignedAt − availableAt, ms); runs not placed are counted apart. */
  readonly placedLateMs: Summary
  readonly notPlaced: number
}

/**
 * Delayed runs at rest: `runs` delayed runs are bulk-inserted
 * with SQL (as run requests with `delaySeconds` would store them: `queued`,
 * `delayed`, `available_at`), `dueTogether` of them due in the same second
 * just after the idle window and the rest hours ahead. One due loop per
 * instance should make them cost no CPU while nothing is due (no timer or
 * poll per run), then place the due second's runs within a second of their
 * time. Workers are inserted and kept online by touching `last_seen_at`, so
 * the figure is the service's placement, not a worker's poll.
 */
export const delayed = async (o: {
  readonly client: Client
  readonly service: Service
  readonly databaseUrl: string
  readonly runs: number
  readonly dueTogether: number
  readonly idleSeconds: number
}): Promise<DelayedFigures> => {
  const tenant = await setupTenant(o.client, o.service.url)
  const triggerId = await createTrigger(o.client, tenant, { name: "delayed" })
  // Enough room for the due second: a worker holds at most 100 unclaimed runs.
  const workers = await insertWorkers(o.databaseUrl, tenant.environmentId, Math.ceil(o.dueTogether / 100) + 1, "delayed")
  const keepOnline = async () =>
    execute(o.databaseUrl, `UPDATE workers SET last_seen_at = now() WHERE id = ANY($1::uuid[])`, [workers.map((w) => w.id)])
  await keepOnline()
  const online = setInterval(() => void keepOnline(), 5000)
  try {
    const idleCpuMsPerSecondBefore = await idleCpu(o.service, o.idleSeconds)
    const insertStart = Date.now()
    // The due second: whole, far enough ahead for the insert and the idle window.
    const dueAt = new Date(Math.ceil((Date.now() + (o.idleSeconds + 15) * 1000) / 1000) * 1000)
    await execute(
      o.databaseUrl,
      `INSERT INTO runs (id, trigger_id, environment_id, status, attempt, input, timeout_seconds, heartbeat_timeout_seconds,
                         max_retries, created_at, available_at, delayed, queue_at)
       SELECT gen_random_uuid(), t.id, t.environment_id, 'queued', 1, t.input, t.timeout_seconds, t.heartbeat_timeout_seconds,
              t.max_retries, now(), a.at, true, a.at
       FROM triggers t, generate_series(0, $2::int - 1) AS i,
         LATERAL (SELECT CASE WHEN i < $3::int THEN $4::timestamptz
                              ELSE $4::timestamptz + interval '1 hour' + (i % 36000) * interval '1 second' END AS at) a
       WHERE t.id = $1`,
      [triggerId, o.runs, o.dueTogether, dueAt.toISOString()]
    )
    const insertSeconds = (Date.now() - insertStart) / 1000
    const headers = { authorization: `Bearer ${tenant.apiKey}` }
    const page = await o.client.request("GET", `/api/v1/environments/${tenant.environmentId}/runs?status=queued&limit=1`, { headers })
    expectStatus(page, 200, "list delayed runs")
    if (page.body.items[0]?.waitReason !== "delayed") throw new Error(`a delayed run reads back without waitReason delayed: ${JSON.stringify(page.body)}`)

    const idleCpuMsPerSecondAfter = await idleCpu(o.service, o.idleSeconds)
    // Past the due second, with a margin for the placement being measured.
    await sleep(Math.max(0, dueAt.getTime() + 3000 - Date.now()))
    const rows = await query<{ late_ms: number | null }>(
      o.databaseUrl,
      `SELECT (extract(epoch FROM assigned_at - available_at) * 1000)::float8 AS late_ms
       FROM runs WHERE trigger_id = $1 AND available_at = $2::timestamptz`,
      [triggerId, dueAt.toISOString()]
    )
    const placed = rows.flatMap((r) => r.late_ms === null ? [] : [Number(r.late_ms)])
    return {
      runs: o.runs,
      dueTogether: o.dueTogether,
      idleSeconds: o.idleSeconds,
      insertSeconds,
      idleCpuMsPerSecondBefore,
      idleCpuMsPerSecondAfter,
      idleCpuPercentOfCore: Math.round(idleCpuMsPerSecondAfter.service / 10 * 100) / 100,
      placedLateMs: summarize(placed),
      notPlaced: rows.length - placed.length
    }
  } finally {
    clearInterval(online)
  }
}

const idleCpu = async (service: Service, seconds: number) => {
  const meter = cpuMeter(service.pid)
  await sleep(seconds * 1000)
  return meter(seconds)
}
