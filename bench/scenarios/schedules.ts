import { cpuMeter, type CpuPerRun } from "../lib/cpu.js"
import { execute } from "../lib/database.js"
import { type Client, expectStatus } from "../lib/http.js"
import type { Service } from "../lib/server.js"
import { setupTenant } from "../lib/setup.js"
import { sleep } from "../lib/stats.js"

export interface ScheduleFigures {
  readonly triggers: number
  readonly idleSeconds: number
  readonly insertSeconds: number
  /** RSS (lowest over a few seconds, after a full GC) and heap after a full GC, before and after the schedules exist. */
  readonly rssBeforeMb: number
  readonly rssAfterMb: number
  readonly heapBeforeMb: number
  readonly heapAfterMb: number
  /** CPU milliseconds per second of idle time (service / Postgres / bench), without and with the schedules. */
  readonly idleCpuMsPerSecondBefore: CpuPerRun
  readonly idleCpuMsPerSecondAfter: CpuPerRun
  /** Runs the schedules started during the idle window (none are due in it: 0 expected). */
  readonly runsFired: number
}

/** RSS once V8 has returned what a full GC freed: the lowest reading over ~5 s after it (see supervision.ts). */
const settledRss = async (service: Service) => {
  await service.heapMb()
  let min = service.rssMb()
  for (let i = 0; i < 10; i++) {
    await sleep(500)
    min = Math.min(min, service.rssMb())
  }
  return min
}

const idleCpu = async (service: Service, seconds: number) => {
  const meter = cpuMeter(service.pid)
  await sleep(seconds * 1000)
  return meter(seconds)
}

/**
 * Issue 19's cost of scheduled triggers at rest: `triggers` daily schedules
 * are bulk-inserted with SQL into one environment (times of day spread from
 * 2 to 22 hours ahead, so none falls due during the measurement), then the
 * change signal is sent as the API would. One scheduling fiber per instance
 * should make them cost a few rows' worth of memory and no CPU while
 * nothing is due: no fiber or timer per trigger, no polling. Measured: the
 * service's RSS (/proc/<pid>/status) and heap before and after, and CPU
 * (/proc/<pid>/stat; every Postgres process; the bench) over `idleSeconds`
 * without and then with the schedules.
 */
export const schedules = async (o: {
  readonly client: Client
  readonly service: Service
  readonly databaseUrl: string
  readonly triggers: number
  readonly idleSeconds: number
}): Promise<ScheduleFigures> => {
  // An environment of its own: its trigger list and runs are the schedules' alone.
  const tenant = await setupTenant(o.client, o.service.url)
  const headers = { authorization: `Bearer ${tenant.apiKey}` }
  const rssBeforeMb = await settledRss(o.service)
  const heapBeforeMb = await o.service.heapMb()
  const idleCpuMsPerSecondBefore = await idleCpu(o.service, o.idleSeconds)

  const insertStart = Date.now()
  await execute(
    o.databaseUrl,
    `INSERT INTO triggers (id, environment_id, name, input, timeout_seconds, heartbeat_timeout_seconds, max_retries,
                           schedule_cron, schedule_timezone, schedule_catch_up, next_run_at)
     SELECT gen_random_uuid(), $1::uuid, 'daily ' || i, '{"job": "nightly"}'::jsonb, 3600, 30, 0,
            (i / 20 % 60) || ' ' || ((extract(hour FROM now() AT TIME ZONE 'UTC')::int + 2 + i % 20) % 24) || ' * * *',
            'UTC', 'latest',
            date_trunc('hour', now()) + (2 + i % 20) * interval '1 hour' + (i / 20 % 60) * interval '1 minute'
     FROM generate_series(0, $2::int - 1) AS i`,
    [tenant.environmentId, o.triggers]
  )
  await execute(o.databaseUrl, `SELECT pg_notify('pts_schedule_changed', 'bench')`)
  const insertSeconds = (Date.now() - insertStart) / 1000
  // The API reads them like any other: a page of triggers with their next tick.
  const page = await o.client.request("GET", `/api/v1/environments/${tenant.environmentId}/triggers?limit=5`, { headers })
  expectStatus(page, 200, "list scheduled triggers")
  if (!page.body.items.every((t: { schedule: unknown; nextRunAt: unknown }) => t.schedule !== null && t.nextRunAt !== null)) {
    throw new Error(`scheduled triggers read back without their schedule: ${JSON.stringify(page.body)}`)
  }

  const idleCpuMsPerSecondAfter = await idleCpu(o.service, o.idleSeconds)
  const rssAfterMb = await settledRss(o.service)
  const heapAfterMb = await o.service.heapMb()
  const runs = await o.client.request("GET", `/api/v1/environments/${tenant.environmentId}/runs?limit=1`, { headers })
  expectStatus(runs, 200, "list runs")
  return {
    triggers: o.triggers,
    idleSeconds: o.idleSeconds,
    insertSeconds,
    rssBeforeMb,
    rssAfterMb,
    heapBeforeMb,
    heapAfterMb,
    idleCpuMsPerSecondBefore,
    idleCpuMsPerSecondAfter,
    runsFired: runs.body.items.length
  }
}
