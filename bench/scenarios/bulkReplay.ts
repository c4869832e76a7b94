import { execute, query } from "../lib/database.js"
import { type Client, expectStatus } from "../lib/http.js"
import { createTrigger, setupTenant } from "../lib/setup.js"
import { sleep } from "../lib/stats.js"
import type { LifecycleFigures } from "./lifecycle.js"

export interface BulkReplayFigures {
  readonly runs: number
  /** From the POST to the bulk action's `completed`, with the lifecycle running beside it. */
  readonly seconds: number
  readonly done: number
  readonly failed: number
  /** Replays made (runs with a `replayOfRunId` of the seeded runs): must equal `runs`. */
  readonly replays: number
  /** The lifecycle's throughput alone (measured earlier in the pass) and beside the bulk replay. */
  readonly lifecycleAloneRunsPerSec: number
  readonly lifecycleBesideRunsPerSec: number
  /** `lifecycleBesideRunsPerSec / lifecycleAloneRunsPerSec` in percent (the target: ≥ 70). */
  readonly lifecycleKeptPct: number
}

/**
 * A bulk replay of `runs` failed runs (its target: ≤ 60 s while the lifecycle
 * keeps ≥ 70 % of its throughput). The failed runs are bulk-inserted with SQL
 * into an environment of their own with no worker (so the replays stay
 * queued and take nothing from the lifecycle's workers); the bulk action is
 * created over HTTP (`filter: {status: failed}`), and the lifecycle runs in
 * its own environment at the same time. Its runs/s beside the bulk replay
 * are compared with its runs/s alone, measured earlier in the same pass.
 */
export const bulkReplay = async (o: {
  readonly client: Client
  readonly serviceUrl: string
  readonly databaseUrl: string
  readonly runs: number
  readonly lifecycleAloneRunsPerSec: number
  readonly lifecycle: () => Promise<LifecycleFigures>
}): Promise<BulkReplayFigures> => {
  const tenant = await setupTenant(o.client, o.serviceUrl)
  const triggerId = await createTrigger(o.client, tenant, {})
  const headers = { authorization: `Bearer ${tenant.apiKey}` }
  await execute(o.databaseUrl, `
    INSERT INTO runs (id, trigger_id, environment_id, status, attempt, input, timeout_seconds, heartbeat_timeout_seconds,
      max_retries, created_at, ended_at, duration_ms, fault_class)
    SELECT gen_random_uuid(), $1, $2, 'failed', 1, jsonb_build_object('n', g), 3600, 30, 0,
      now() - interval '1 hour', now() - interval '59 minutes', 1000, 'client'
    FROM generate_series(1, $3::int) AS g`, [triggerId, tenant.environmentId, o.runs])
  await execute(o.databaseUrl, "ANALYZE runs")

  const start = Date.now()
  const beside = o.lifecycle()
  const created = expectStatus(
    await o.client.request("POST", `/api/v1/environments/${tenant.environmentId}/bulk-actions`, {
      headers,
      body: { action: "replay", filter: { status: "failed", triggerId } }
    }),
    201,
    "bulk action"
  )
  let progress = created.body
  while (progress.state !== "completed" && progress.state !== "cancelled") {
    if (Date.now() - start > 600_000) throw new Error(`bulk replay not done after 600 s: ${JSON.stringify(progress)}`)
    await sleep(100)
    progress = expectStatus(await o.client.request("GET", `/api/v1/bulk-actions/${created.body.id}`, { headers }), 200, "progress").body
  }
  const seconds = (Date.now() - start) / 1000
  const lifecycle = await beside
  const [made] = await query<{ n: number }>(o.databaseUrl,
    "SELECT count(*)::int AS n FROM runs WHERE environment_id = $1 AND replay_of_run_id IS NOT NULL", [tenant.environmentId])
  return {
    runs: o.runs,
    seconds: Math.round(seconds * 100) / 100,
    done: progress.done,
    failed: progress.failed,
    replays: made?.n ?? 0,
    lifecycleAloneRunsPerSec: o.lifecycleAloneRunsPerSec,
    lifecycleBesideRunsPerSec: lifecycle.runsPerSec,
    lifecycleKeptPct: Math.round((lifecycle.runsPerSec / o.lifecycleAloneRunsPerSec) * 1000) / 10
  }
}
