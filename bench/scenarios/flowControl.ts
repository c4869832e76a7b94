import { execute, query } from "../lib/database.js"
import { type Client, expectStatus } from "../lib/http.js"
import type { startReceiver } from "../lib/receiver.js"
import { createTrigger, registerWorkers, setupTenant, type Tenant, type Worker } from "../lib/setup.js"
import { summarize, type Summary } from "../lib/stats.js"
import { lifecycle, type LifecycleFigures } from "./lifecycle.js"

type Receiver = Awaited<ReturnType<typeof startReceiver>>

/** Flow control's figures (its "Performance" targets). */
export interface FlowControlFigures {
  /** The lifecycle of a trigger without limits, back to back with the next (the baseline). */
  readonly noLimit: LifecycleFigures
  /** The same lifecycle with `concurrency: {perKey: 1}` and `keys` keys, requested round-robin. */
  readonly perKey: LifecycleFigures & { readonly keys: number }
  /** perKey runs/s ÷ no-limit runs/s (the target: ≥ 0.8). */
  readonly ratio: number
  /** `GET /runs/{id}` of a queued run among `queued` limited runs waiting (Postgres passes only; the target: ≤ 20 ms p50). */
  readonly waitReason: (Summary & { readonly queued: number; readonly reason: string }) | undefined
}

/**
 * The lifecycle (one call per step) of a trigger without limits, then of one
 * with `perKey: 1` whose runs spread over `keys` keys, same workers, same
 * sizes, back to back; then (with a database URL) `queued` runs bulk-inserted
 * waiting under a trigger limit of 1 and `calls` reads of the wait reason of
 * random ones, one at a time. The waiting runs are removed afterwards.
 */
export const flowControl = async (o: {
  readonly client: Client
  readonly serviceUrl: string
  readonly databaseUrl: string | undefined
  readonly tenant: Tenant
  readonly workers: ReadonlyArray<Worker>
  readonly receiver: Receiver
  readonly servicePid: number
  readonly producers: number
  readonly runs: number
  readonly keys: number
  readonly queued: number
  readonly calls: number
}): Promise<FlowControlFigures> => {
  const common = { client: o.client, tenant: o.tenant, workers: o.workers, receiver: o.receiver, producers: o.producers, servicePid: o.servicePid, batch: 0, rate: 0 }
  const webhook = { webhookUrl: o.receiver.url, webhookSecret: "bench-secret-0123456789abcdef" }
  const plain = await createTrigger(o.client, o.tenant, webhook)
  const limited = await createTrigger(o.client, o.tenant, { ...webhook, concurrency: { perKey: 1 } })
  const noLimit = await lifecycle({ ...common, triggerId: plain, runs: o.runs })
  const perKey = await lifecycle({ ...common, triggerId: limited, runs: o.runs, requestBody: (i) => ({ concurrencyKey: `k${i % o.keys}` }) })
  const ratio = Math.round((perKey.runsPerSec / noLimit.runsPerSec) * 100) / 100
  return {
    noLimit,
    perKey: { ...perKey, keys: o.keys },
    ratio,
    waitReason: o.databaseUrl === undefined ? undefined : await waitReasonReads(o, o.databaseUrl)
  }
}

const waitReasonReads = async (
  o: { readonly client: Client; readonly serviceUrl: string; readonly queued: number; readonly calls: number },
  databaseUrl: string
) => {
  // An environment of its own, with one worker that holds the trigger's one place.
  const tenant = await setupTenant(o.client, o.serviceUrl)
  const [worker] = await registerWorkers(o.client, tenant, 1)
  const triggerId = await createTrigger(o.client, tenant, { concurrency: { limit: 1, perKey: 1 } })
  const headers = { authorization: `Bearer ${tenant.apiKey}` }
  const held = expectStatus(await o.client.request("POST", `/api/v1/triggers/${triggerId}/run`, { headers, body: { concurrencyKey: "k0" } }), 201, "run")
  const polled = expectStatus(
    await o.client.request("GET", `/api/v1/workers/${worker!.id}/poll?wait=5&claim=true`, { headers: { authorization: `Bearer ${worker!.token}` } }),
    200,
    "poll"
  )
  if (polled.body.runs[0]?.id !== held.body.id) throw new Error("the first run did not take the trigger's place")
  // Ids UUIDv7-shaped, after the held run's, as the service makes them; keys spread over 1,000.
  await execute(databaseUrl, `
    INSERT INTO runs (id, trigger_id, environment_id, status, attempt, timeout_seconds, heartbeat_timeout_seconds, max_retries,
      created_at, concurrency_key, flow_limited)
    SELECT (lpad(to_hex(floor(extract(epoch FROM now()) * 1000)::bigint + 1), 12, '0') || '7' || substr(md5(i::text), 1, 3)
        || '8' || substr(md5(i::text), 4, 15))::uuid,
      $1, $2, 'queued', 1, 3600, 30, 0, now(), 'k' || (i % 1000), true
    FROM generate_series(1, $3::int) AS i`, [triggerId, tenant.environmentId, o.queued])
  await execute(databaseUrl, "VACUUM ANALYZE runs")
  const ids = (await query<{ id: string }>(databaseUrl, `
    SELECT id FROM runs WHERE environment_id = $1 AND worker_id IS NULL AND ended_at IS NULL ORDER BY md5(id::text) LIMIT $2`,
    [tenant.environmentId, o.calls + 2])).map((row) => row.id)
  const samples: Array<number> = []
  let reason = ""
  for (const [i, id] of ids.entries()) {
    const start = performance.now()
    const read = expectStatus(await o.client.request("GET", `/api/v1/runs/${id}`, { headers }), 200, "run")
    if (i >= 2) samples.push(performance.now() - start)
    reason = read.body.waitReason
  }
  await execute(databaseUrl, "DELETE FROM runs WHERE environment_id = $1 AND worker_id IS NULL AND ended_at IS NULL", [tenant.environmentId])
  return { ...summarize(samples), queued: o.queued, reason }
}
