import { databaseAndReceiver, type Receiver, type ServiceProcess, startService, type TestDatabase } from "../support/Process.js"
import { setupTenant, type Tenant } from "./load.js"
import { type SdkWorker, startSdkWorkers } from "./sdkWorkers.js"

/** What a single-instance fault test runs against (`startFaultFleet`). */
export interface FaultFleet {
  readonly db: TestDatabase
  readonly receiver: Receiver
  /** The service's settings, to start it again after a crash. */
  readonly env: Record<string, string>
  readonly service: ServiceProcess
  /** Workers 0–3, for the load's HTTP workers. */
  readonly httpWorkers: Tenant
  /** Workers 4–7, each run by an SDK worker process (two over the channel, two over REST). */
  readonly sdk: ReadonlyArray<SdkWorker>
}

/**
 * A fresh database, a webhook receiver, one service process with short
 * clocks (so runs a dead worker held come back within seconds) and a tenant
 * of eight workers, half for the load's HTTP workers and half run by SDK
 * worker processes; each is cleaned up with `cleanup`.
 */
export const startFaultFleet = async (
  cleanup: (f: () => Promise<unknown>) => void,
  dataDirPrefix: string
): Promise<FaultFleet> => {
  const { db, env, receiver } = await databaseAndReceiver(cleanup, dataDirPrefix, {
    CLAIM_TIMEOUT_SECONDS: "3",
    WORKER_OFFLINE_AFTER_SECONDS: "10"
  })
  const service = await startService(env)
  cleanup(() => service.stop())
  const tenant = await setupTenant(service.url, receiver.url, 8)
  const sdk = startSdkWorkers(service.url, tenant.workers.slice(4))
  cleanup(() => Promise.all(sdk.map((worker) => worker.stop())))
  return { db, receiver, env, service, httpWorkers: { ...tenant, workers: tenant.workers.slice(0, 4) }, sdk }
}
