import { makeWorkerUtils, run } from "graphile-worker"
import { sleep, summarize, type Summary } from "../lib/stats.js"

/**
 * The reference: the same enqueue → worker → complete workload through
 * graphile-worker, a well-known Postgres job queue, on the same server.
 */
export interface GraphileFigures {
  readonly unbatchedJobsPerSec: number
  readonly batchedJobsPerSec: number
  readonly dispatch: Summary
}

const noLogs = () => () => {}

export const benchGraphile = async (connectionString: string, options: { jobs: number; concurrency: number; latencySamples: number }): Promise<GraphileFigures> => {
  let done = 0
  const latencies: Array<number> = []
  let waiter: (() => void) | undefined
  const runner = await run({
    connectionString,
    concurrency: options.concurrency,
    noHandleSignals: true,
    pollInterval: 1000,
    logger: new (await import("graphile-worker")).Logger(noLogs),
    taskList: {
      noop: async () => {
        done++
      },
      ping: async (payload: any) => {
        latencies.push(performance.now() + performance.timeOrigin - payload.t0)
        waiter?.()
      }
    }
  })
  const utils = await makeWorkerUtils({ connectionString })
  try {
    const drain = async (target: number) => {
      while (done < target) await sleep(2)
    }
    // Unbatched: one addJob call per job, from as many concurrent producers as the worker has slots.
    done = 0
    let start = performance.now()
    let next = 0
    await Promise.all(Array.from({ length: options.concurrency }, async () => {
      while (next < options.jobs) {
        next++
        await utils.addJob("noop", {})
      }
    }))
    await drain(options.jobs)
    const unbatchedJobsPerSec = options.jobs / ((performance.now() - start) / 1000)

    // Batched: the same jobs, 500 per statement (0.16 has no addJobs; its SQL API does the same).
    done = 0
    start = performance.now()
    for (let i = 0; i < options.jobs; i += 500) {
      const n = Math.min(500, options.jobs - i)
      await utils.withPgClient((client) =>
        client.query("SELECT graphile_worker.add_job('noop', '{}'::json) FROM generate_series(1, $1)", [n])
      )
    }
    await drain(options.jobs)
    const batchedJobsPerSec = options.jobs / ((performance.now() - start) / 1000)

    // Dispatch latency at idle: add one job, wait for the task to start, repeat.
    for (let i = 0; i < options.latencySamples; i++) {
      const started = new Promise<void>((resolve) => (waiter = resolve))
      await utils.addJob("ping", { t0: performance.now() + performance.timeOrigin })
      await started
    }
    return { unbatchedJobsPerSec, batchedJobsPerSec, dispatch: summarize(latencies) }
  } finally {
    await utils.release()
    await runner.stop()
  }
}
