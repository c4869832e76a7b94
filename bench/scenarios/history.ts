import { execute } from "../lib/database.js"
import { type Client, expectStatus } from "../lib/http.js"
import { createTrigger, registerWorkers, setupTenant } from "../lib/setup.js"
import { percentile } from "../lib/stats.js"
import { firstPaint, type FirstPaintFigures } from "./firstPaint.js"

/** Median milliseconds per read, empty and with the history loaded. */
export interface HistoryFigures {
  readonly runs: number
  readonly auditRows: number
  readonly loadSeconds: number
  readonly empty: Record<string, number>
  readonly loaded: Record<string, number>
  /** The first overview after loading: it computes and stores the month's closed days once. */
  readonly firstOverviewMs: number
  /** The dashboard's runs page in Chromium, to its first rows, loaded (undefined without Chromium). */
  readonly runsPageFirstPaint: FirstPaintFigures | undefined
}

const day = 86_400_000

/**
 * Reads on a long history (issue 16, "Scale and speed"): one environment gets
 * `runs` terminal runs spread evenly over the last 40 days (90 % succeeded,
 * 7 % failed, 3 % timed out, all on one busy worker; every other run tagged
 * `common`, one in 1,000 also `rare`) and as many
 * `run.requested` audit rows, bulk-inserted with SQL (INSERT … SELECT over
 * generate_series, ids UUIDv7 of each row's time as the service makes them),
 * then VACUUM ANALYZE. Each read is called `calls` times over HTTP, one at a time,
 * after two warm-up calls; the median is reported, before loading (the same
 * environment, empty) and after.
 */
export const history = async (o: {
  readonly client: Client
  readonly serviceUrl: string
  readonly databaseUrl: string
  readonly runs: number
  readonly calls: number
}): Promise<HistoryFigures> => {
  const tenant = await setupTenant(o.client, o.serviceUrl)
  const [idle, busy] = await registerWorkers(o.client, tenant, 2)
  const triggerId = await createTrigger(o.client, tenant, {})
  const env = tenant.environmentId
  const headers = { authorization: `Bearer ${tenant.apiKey}` }
  const now = Date.now()
  const iso = (ms: number) => new Date(ms).toISOString()
  // A one-hour window in the middle of the history, and a cursor halfway down it.
  const middle = now - 20 * day
  let deepCursor = ""

  const reads = (): Record<string, string> => ({
    "dashboard/overview": `/api/v1/environments/${env}/dashboard/overview`,
    "runs, first page": `/api/v1/environments/${env}/runs`,
    "runs, status=running": `/api/v1/environments/${env}/runs?status=running`,
    "runs, status=failed": `/api/v1/environments/${env}/runs?status=failed`,
    "runs, workerId of a worker with no runs": `/api/v1/environments/${env}/runs?workerId=${idle!.id}`,
    "runs, one-hour from/to in the middle": `/api/v1/environments/${env}/runs?from=${iso(middle)}&to=${iso(middle + 3_600_000)}`,
    "runs, deep cursor (halfway)": `/api/v1/environments/${env}/runs${deepCursor === "" ? "" : `?cursor=${deepCursor}`}`,
    "trigger's runs, first page": `/api/v1/triggers/${triggerId}/runs`,
    "runs, tag on half the runs": `/api/v1/environments/${env}/runs?tag=common`,
    "runs, tag on 1 run in 1,000": `/api/v1/environments/${env}/runs?tag=rare`,
    "runs, tag on no run": `/api/v1/environments/${env}/runs?tag=absent`,
    "runs, tag on half the runs and status=timed_out": `/api/v1/environments/${env}/runs?tag=common&status=timed_out`,
    "audit log, action=run.requested": `/api/v1/environments/${env}/audit-log?action=run.requested`,
    "audit log, action=trigger.created": `/api/v1/environments/${env}/audit-log?action=trigger.created`,
    "time series, default (24 h by hour)": `/api/v1/environments/${env}/dashboard/runs`,
    "time series, 7 days by hour": `/api/v1/environments/${env}/dashboard/runs?from=${iso(now - 7 * day)}&to=${iso(now)}&bucket=hour`,
    "time series, 30 days by day": `/api/v1/environments/${env}/dashboard/runs?from=${iso(now - 30 * day)}&to=${iso(now)}&bucket=day`
  })

  const median = async (path: string): Promise<number> => {
    const samples: Array<number> = []
    for (let i = 0; i < o.calls + 2; i++) {
      const start = performance.now()
      expectStatus(await o.client.request("GET", path, { headers }), 200, path)
      if (i >= 2) samples.push(performance.now() - start)
    }
    return Math.round(percentile(samples.sort((a, b) => a - b), 50) * 10) / 10
  }
  const measure = async () => {
    const figures: Record<string, number> = {}
    for (const [name, path] of Object.entries(reads())) figures[name] = await median(path)
    return figures
  }

  const empty = await measure()
  const loadStart = Date.now()
  const uuidv7 = (ts: string, seed: string) =>
    `(lpad(to_hex(floor(extract(epoch FROM ${ts}) * 1000)::bigint), 12, '0') || '7' || substr(md5(${seed}), 1, 3)
      || '8' || substr(md5(${seed}), 4, 15))::uuid`
  await execute(o.databaseUrl, `
    INSERT INTO runs (id, trigger_id, environment_id, status, attempt, worker_id, timeout_seconds, heartbeat_timeout_seconds,
      max_retries, created_at, assigned_at, claimed_at, started_at, ended_at, duration_ms, cost_usd, fault_class, short_message, tags)
    SELECT ${uuidv7("g.created_at", "g.i::text || 'r'")}, $1, $2, g.status, 1, $3, 3600, 30, 0,
      g.created_at, g.created_at, g.created_at, g.created_at, g.created_at + g.duration_ms * interval '1 millisecond',
      g.duration_ms, CASE WHEN g.status = 'succeeded' THEN round((g.i % 1000) / 100000.0, 8) END,
      CASE g.status WHEN 'succeeded' THEN 'none' WHEN 'failed' THEN 'client' ELSE 'infra' END, 'bench history',
      CASE WHEN g.i % 1000 = 0 THEN ARRAY['common', 'rare'] WHEN g.i % 2 = 0 THEN ARRAY['common'] ELSE '{}'::text[] END
    FROM (
      SELECT i, to_timestamp($4::double precision / 1000) + (i - 1) * ($5::double precision / $6) * interval '1 millisecond' AS created_at,
        CASE WHEN i % 100 < 90 THEN 'succeeded' WHEN i % 100 < 97 THEN 'failed' ELSE 'timed_out' END AS status,
        (500 + (i::bigint * 7919) % 60000) AS duration_ms
      FROM generate_series(1, $6::int) AS i
    ) g`, [triggerId, env, busy!.id, now - 40 * day, 40 * day - 120_000, o.runs])
  // Each tag of a run has its row, as run creation writes them (migration 0018).
  await execute(o.databaseUrl, `
    INSERT INTO run_tags (run_id, environment_id, tag)
    SELECT r.id, r.environment_id, t.tag FROM runs r CROSS JOIN unnest(r.tags) AS t(tag) WHERE r.environment_id = $1`, [env])
  await execute(o.databaseUrl, `
    INSERT INTO audit_log (id, environment_id, actor_type, actor_id, action, target_type, target_id, metadata, created_at)
    SELECT ${uuidv7("r.created_at", "r.id::text || 'a'")}, r.environment_id, 'system', NULL, 'run.requested', 'run', r.id,
      '{"bench": true}'::jsonb, r.created_at
    FROM runs r WHERE r.environment_id = $1`, [env])
  // VACUUM too: a history that grew over 40 days has been vacuumed by autovacuum
  // (inserts trigger it since Postgres 13), so the covering indexes answer
  // from the index alone; a freshly bulk-loaded table would not yet.
  await execute(o.databaseUrl, "VACUUM ANALYZE runs")
  await execute(o.databaseUrl, "VACUUM ANALYZE audit_log")
  await execute(o.databaseUrl, "VACUUM ANALYZE run_tags")
  const loadSeconds = Math.round((Date.now() - loadStart) / 100) / 10
  deepCursor = await new Promise<string>((resolve, reject) => {
    // The id halfway down the environment's listing, as the listing's cursor encodes it.
    // A window holding a few runs whatever the size (one run per ~3.5 s at 1,000,000).
    const window = Math.max(60_000, Math.ceil((40 * day) / o.runs) * 5)
    o.client.request("GET", `/api/v1/environments/${env}/runs?from=${iso(middle)}&to=${iso(middle + window)}&limit=1`, { headers }).then(
      (reply) => resolve(Buffer.from(expectStatus(reply, 200, "middle run").body.items[0].id, "utf8").toString("base64url")),
      reject
    )
  })
  const start = performance.now()
  expectStatus(await o.client.request("GET", `/api/v1/environments/${env}/dashboard/overview`, { headers }), 200, "first overview")
  const firstOverviewMs = Math.round((performance.now() - start) * 10) / 10
  const loaded = await measure()
  const runsPageFirstPaint = await firstPaint({ serviceUrl: o.serviceUrl, cookie: tenant.cookie, loads: 5 })
  return { runs: o.runs, auditRows: o.runs, loadSeconds, empty, loaded, firstOverviewMs, runsPageFirstPaint }
}
