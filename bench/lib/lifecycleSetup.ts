import { createDatabase } from "./database.js"
import { makeClient } from "./http.js"
import { startReceiver } from "./receiver.js"
import { startService } from "./server.js"
import { createTrigger, registerWorkers, setupTenant } from "./setup.js"

export const hookSecret = "bench-secret-0123456789abcdef"

/**
 * What a lifecycle scenario with workers of its own starts from: the service
 * on a database of its own (`npm start`'s processes unless `webConcurrency`
 * says), a local webhook receiver, a tenant with `workers` registered workers
 * and a trigger whose webhooks go to the receiver. `close` stops what it started.
 */
export const startLifecycle = async (o: {
  readonly baseUrl: string
  readonly database: string
  readonly webConcurrency: string | undefined
  readonly workers: number
}) => {
  const databaseUrl = await createDatabase(o.baseUrl, o.database)
  const service = await startService(
    { DATABASE_URL: databaseUrl, ...(o.webConcurrency ? { WEB_CONCURRENCY: o.webConcurrency } : {}) },
    { heapProbe: false }
  )
  const client = makeClient(service.url)
  const receiver = await startReceiver()
  const close = async () => {
    client.close()
    await receiver.close()
    await service.stop()
  }
  try {
    const tenant = await setupTenant(client, service.url)
    const workers = await registerWorkers(client, tenant, o.workers)
    const triggerId = await createTrigger(client, tenant, { webhookUrl: receiver.url, webhookSecret: hookSecret })
    // The service processes a primary forks (one when it serves alone).
    const processes = Math.max(1, service.pids().length - 1)
    return { databaseUrl, service, client, receiver, tenant, workers, triggerId, processes, close }
  } catch (error) {
    await close()
    throw error
  }
}
