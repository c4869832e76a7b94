import { cpuMeter, type CpuPerRun } from "../lib/cpu.js"
import { execute } from "../lib/database.js"
import type { startReceiver } from "../lib/receiver.js"

type Receiver = Awaited<ReturnType<typeof startReceiver>>

export interface DrainFigures {
  readonly deliveries: number
  readonly seconds: number
  readonly deliveriesPerSec: number
  /** CPU milliseconds per delivery (the `runs` field counts deliveries here). */
  readonly cpuMsPerDelivery: CpuPerRun
}

/**
 * The delivery loop's own capacity: `deliveries` terminal runs of a webhook
 * trigger and their outbox rows are written straight into the database (what
 * that many completions leave behind, with nothing else going on), one NOTIFY
 * wakes the loop, and the time until the receiver has them all is measured.
 * Every delivery is signed and sent over HTTP as in the lifecycle scenarios.
 */
export const webhookDrain = async (o: {
  readonly databaseUrl: string
  readonly triggerId: string
  readonly receiver: Receiver
  readonly deliveries: number
  readonly servicePid: number
}): Promise<DrainFigures> => {
  const target = o.receiver.arrivals.size + o.deliveries
  await execute(o.databaseUrl, `
    WITH t AS (SELECT * FROM triggers WHERE id = $1),
    r AS (
      INSERT INTO runs (id, trigger_id, environment_id, status, attempt, timeout_seconds, heartbeat_timeout_seconds,
        max_retries, webhook_url, webhook_secret_enc, created_at, started_at, ended_at, duration_ms, short_message, fault_class)
      SELECT gen_random_uuid(), t.id, t.environment_id, 'succeeded', 1, t.timeout_seconds, t.heartbeat_timeout_seconds,
        t.max_retries, t.webhook_url, t.webhook_secret_enc, now(), now(), now(), 0, 'ok', 'none'
      FROM t, generate_series(1, $2)
      RETURNING id, trigger_id, webhook_url, webhook_secret_enc
    )
    INSERT INTO webhook_outbox (run_id, trigger_id, url, secret_enc)
    SELECT id, trigger_id, webhook_url, webhook_secret_enc FROM r`, [o.triggerId, o.deliveries])
  const start = Date.now()
  const cpu = cpuMeter(o.servicePid)
  await execute(o.databaseUrl, "SELECT pg_notify('webhook_outbox', 'bench')")
  await o.receiver.waitFor(target, 120_000)
  const seconds = (Date.now() - start) / 1000
  return {
    deliveries: o.deliveries,
    seconds: Math.round(seconds * 100) / 100,
    deliveriesPerSec: Math.round(o.deliveries / seconds),
    cpuMsPerDelivery: cpu(o.deliveries)
  }
}
