import type { Client } from "../lib/http.js"
import type { startReceiver } from "../lib/receiver.js"
import type { Tenant, Worker } from "../lib/setup.js"
import { cpuMeter, type CpuPerRun } from "../lib/cpu.js"
import { sleep, summarize, type Summary } from "../lib/stats.js"

type Receiver = Awaited<ReturnType<typeof startReceiver>>

export interface LifecycleOptions {
  readonly client: Client
  readonly tenant: Tenant
  readonly workers: ReadonlyArray<Worker>
  readonly triggerId: string
  readonly receiver: Receiver
  readonly runs: number
  /** Claim up to this many runs per poll (the `claim=true&max=K` extension); 0 = one call per step. */
  readonly batch: number
  /** Runs requested per second; 0 = as fast as the producers go. */
  readonly rate: number
  readonly producers: number
  /** The service's process id, to read its CPU time. */
  readonly servicePid: number
  /** The body of the i-th run request (none by default). */
  readonly requestBody?: ((i: number) => unknown) | undefined
}

export interface LifecycleFigures {
  readonly runs: number
  readonly seconds: number
  readonly runsPerSec: number
  readonly deliveredPerSec: number
  readonly dispatch: Summary
  readonly webhook: Summary
  readonly errors: number
  /** Runs requested that no worker received within a minute of the last one (should be 0). */
  readonly lost: number
  /** CPU milliseconds per run: service, Postgres, bench client (all on one machine). */
  readonly cpuMsPerRun: CpuPerRun
}

/**
 * N runs through the full HTTP path: POST /run, long-poll, claim, start,
 * complete, and the webhook delivered to a local receiver (batched, as the
 * worker SDK's claimOnPoll: the poll claims and starts up to `batch` runs,
 * and their completes are coalesced into batched calls). End-to-end time is
 * from the first request to the last webhook received.
 */
export const lifecycle = async (o: LifecycleOptions): Promise<LifecycleFigures> => {
  const auth = { authorization: `Bearer ${o.tenant.apiKey}` }
  const requestedAt = new Map<string, number>()
  const receivedAt = new Map<string, number>()
  const endedAt = new Map<string, number>()
  const baseline = new Set(o.receiver.arrivals.keys())
  let requested = 0
  let completed = 0
  let errors = 0
  const start = Date.now()
  const cpu = cpuMeter(o.servicePid)

  const produce = async () => {
    while (requested < o.runs) {
      const i = requested++
      if (o.rate > 0) {
        const due = start + (i * 1000) / o.rate
        const wait = due - Date.now()
        if (wait > 0) await sleep(wait)
      }
      const t0 = Date.now()
      const body = o.requestBody?.(i)
      const res = await o.client.request("POST", `/api/v1/triggers/${o.triggerId}/run`, {
        headers: auth,
        ...(body === undefined ? {} : { body })
      })
      if (res.status === 201) requestedAt.set(res.body.id, t0)
      else errors++
    }
  }

  const step = async (worker: Worker, path: string, body?: unknown) => {
    const res = await o.client.request("POST", `/api/v1/workers/${worker.id}/runs/${path}`, {
      headers: { authorization: `Bearer ${worker.token}` },
      ...(body === undefined ? {} : { body })
    })
    if (res.status !== 200) errors++
    return res
  }

  // A run that never reaches a worker would keep the workers polling forever:
  // once every run is requested, give up a minute after the last one arrived.
  let lastReceived = Date.now()
  const stalled = () => requested >= o.runs && Date.now() - lastReceived > 60_000
  /**
   * Completes as the worker SDK's claimOnPoll does: what finishes while a
   * batched complete is in flight goes out together in the next one.
   */
  const completer = (worker: Worker) => {
    let queue: Array<{ readonly runId: string; readonly done: () => void }> = []
    let sending = false
    const flush = async () => {
      while (queue.length > 0) {
        const batch = queue.slice(0, 100)
        queue = queue.slice(100)
        const res = await o.client.request("POST", `/api/v1/workers/${worker.id}/runs/complete`, {
          headers: { authorization: `Bearer ${worker.token}` },
          body: { runs: batch.map((item) => ({ runId: item.runId, status: "succeeded", stdout: "ok", costUsd: "0.001" })) }
        })
        if (res.status !== 200) errors += batch.length
        else {
          for (const run of res.body.runs) endedAt.set(run.id, Date.parse(run.endedAt))
          errors += res.body.rejected.length
        }
        completed += batch.length
        for (const item of batch) item.done()
      }
      sending = false
    }
    return (runId: string) =>
      new Promise<void>((done) => {
        queue.push({ runId, done })
        if (!sending) {
          sending = true
          queueMicrotask(() => void flush())
        }
      })
  }

  const work = async (worker: Worker) => {
    // Batched: claimed and started in the poll (`start=true`), completes coalesced, as the worker SDK's claimOnPoll does.
    const query = o.batch > 0 ? `wait=1&claim=true&max=${o.batch}&start=true` : "wait=1"
    const complete = completer(worker)
    while (completed < o.runs && !stalled()) {
      const res = await o.client.request("GET", `/api/v1/workers/${worker.id}/poll?${query}`, {
        headers: { authorization: `Bearer ${worker.token}` }
      })
      if (res.status !== 200) {
        errors++
        await sleep(50)
        continue
      }
      const now = Date.now()
      if (res.body.runs.length > 0) lastReceived = now
      await Promise.all((res.body.runs as Array<any>).map(async (run) => {
        receivedAt.set(run.id, now)
        if (run.status === "assigned") await step(worker, `${run.id}/claim`)
        if (run.status !== "running") await step(worker, `${run.id}/start`)
        if (o.batch > 0) return complete(run.id)
        const done = await step(worker, `${run.id}/complete`, { status: "succeeded", stdout: "ok", costUsd: "0.001" })
        if (done.status === 200) endedAt.set(run.id, Date.parse(done.body.run.endedAt))
        completed++
      }))
    }
  }

  await Promise.all([
    ...Array.from({ length: o.producers }, produce),
    ...o.workers.map(work)
  ])
  const target = baseline.size + completed
  await o.receiver.waitFor(target, 60_000)
  const cpuMsPerRun = cpu(o.runs)
  const mine = [...o.receiver.arrivals.entries()].filter(([id]) => !baseline.has(id))
  const lastArrival = Math.max(...mine.map(([, at]) => at))
  const seconds = (lastArrival - start) / 1000
  const firstEnd = Math.min(...endedAt.values())
  return {
    runs: o.runs,
    seconds: Math.round(seconds * 100) / 100,
    runsPerSec: Math.round(o.runs / seconds),
    deliveredPerSec: Math.round(mine.length / ((lastArrival - firstEnd) / 1000)),
    dispatch: summarize([...receivedAt].flatMap(([id, at]) => (requestedAt.has(id) ? [at - requestedAt.get(id)!] : []))),
    webhook: summarize(mine.flatMap(([id, at]) => (endedAt.has(id) ? [Math.max(0, at - endedAt.get(id)!)] : []))),
    errors,
    lost: [...requestedAt.keys()].filter((id) => !receivedAt.has(id)).length,
    cpuMsPerRun
  }
}

/**
 * Dispatch latency at idle: one worker long-polls, one run is requested, the
 * time until the poll answers with it is one sample; the run is then finished.
 */
export const idleDispatch = async (o: Pick<LifecycleOptions, "client" | "tenant" | "triggerId"> & { worker: Worker; samples: number }): Promise<Summary> => {
  const samples: Array<number> = []
  const workerAuth = { authorization: `Bearer ${o.worker.token}` }
  for (let i = 0; i < o.samples; i++) {
    const poll = o.client.request("GET", `/api/v1/workers/${o.worker.id}/poll?wait=10&claim=true`, { headers: workerAuth })
    await sleep(2)
    const t0 = performance.now()
    await o.client.request("POST", `/api/v1/triggers/${o.triggerId}/run`, { headers: { authorization: `Bearer ${o.tenant.apiKey}` } })
    const res = await poll
    samples.push(performance.now() - t0)
    for (const run of res.body.runs ?? []) {
      await o.client.request("POST", `/api/v1/workers/${o.worker.id}/runs/${run.id}/complete`, {
        headers: workerAuth,
        body: { status: "succeeded" }
      })
    }
  }
  return summarize(samples)
}
