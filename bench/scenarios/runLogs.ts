import * as http from "node:http"
import { createDatabase } from "../lib/database.js"
import { expectStatus, makeClient, type Client } from "../lib/http.js"
import { startService } from "../lib/server.js"
import { createTrigger, registerWorkers, setupTenant, type Tenant, type Worker } from "../lib/setup.js"
import { sleep, summarize, type Summary } from "../lib/stats.js"

export interface RunLogsFigures {
  readonly writers: number
  readonly linesPerSecondEach: number
  readonly seconds: number
  readonly linesSent: number
  readonly linesReceived: number
  /** Lines a follower never received, and lines it received twice or out of order (all should be 0). */
  readonly missing: number
  readonly duplicatesOrOutOfOrder: number
  /** Worker's send (the line's `at`) → the follower's receipt, ms. */
  readonly latency: Summary
  readonly appendErrors: number
  /** Lifecycle throughput of other runs (request, poll-claim-start, complete): alone, then while the logs are written. */
  readonly lifecycleAloneRunsPerSec: number
  readonly lifecycleDuringRunsPerSec: number
  readonly lifecycleDropPct: number
}

interface Follower {
  readonly received: () => number
  readonly disorder: () => number
  readonly lastSeq: () => number
  readonly latencies: Array<number>
  readonly ended: Promise<void>
  readonly close: () => void
}

/** Follows a run's log as SSE (`?follow=1`), timing each line from its `at`. */
const follow = (baseUrl: string, runId: string, apiKey: string): Promise<Follower> =>
  new Promise((resolve, reject) => {
    const latencies: Array<number> = []
    let received = 0
    let disorder = 0
    let lastSeq = 0
    let buffer = ""
    let endedResolve: () => void = () => {}
    const ended = new Promise<void>((r) => (endedResolve = r))
    const req = http.get(`${baseUrl}/api/v1/runs/${runId}/logs?follow=1`, { headers: { authorization: `Bearer ${apiKey}` } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`follow answered ${res.statusCode}`))
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => {
        const now = Date.now()
        buffer += chunk
        let end = buffer.indexOf("\n\n")
        while (end !== -1) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          end = buffer.indexOf("\n\n")
          if (block.startsWith("event: end")) endedResolve()
          if (!block.startsWith("event: line")) continue
          const data = JSON.parse(block.slice(block.indexOf("data: ") + 6))
          received++
          if (data.seq !== lastSeq + 1) disorder++
          lastSeq = Math.max(lastSeq, data.seq)
          latencies.push(now - Date.parse(data.at))
        }
      })
      res.on("end", endedResolve)
      resolve({ received: () => received, disorder: () => disorder, lastSeq: () => lastSeq, latencies, ended, close: () => req.destroy() })
    })
    req.on("error", reject)
  })

/**
 * One worker writing `rate` lines a second to its run for `seconds`, as the
 * SDK does: lines pile up as they are produced, and each call takes what
 * piled up while the previous one was in flight (up to 1,000).
 */
const write = async (client: Client, worker: Worker, runId: string, rate: number, seconds: number) => {
  const pending: Array<{ stream: string; text: string; at: string }> = []
  let produced = 0
  let sequence = 1
  let errors = 0
  const start = Date.now()
  let producing = true
  const producer = (async () => {
    while (Date.now() - start < seconds * 1000) {
      const due = Math.floor(((Date.now() - start) / 1000) * rate)
      const at = new Date().toISOString()
      while (produced < due) {
        produced++
        pending.push({ stream: produced % 10 === 0 ? "stderr" : "stdout", text: `line ${produced} of a chatty build step, with some text to make it realistic`, at })
      }
      await sleep(10)
    }
    producing = false
  })()
  while (producing || pending.length > 0) {
    if (pending.length === 0) {
      await sleep(5)
      continue
    }
    const lines = pending.splice(0, 1000)
    const reply = await client.request("POST", `/api/v1/workers/${worker.id}/runs/${runId}/logs`, {
      body: { sequence, lines },
      headers: { authorization: `Bearer ${worker.token}` }
    }).catch(() => ({ status: 0, body: undefined }))
    if (reply.status === 200) sequence += lines.length
    else {
      errors++
      // Resent with the same sequence: stored once.
      pending.unshift(...lines)
    }
  }
  await producer
  return { sent: produced, errors }
}

/** Other runs through their lifecycle for `seconds` (requested with the API key, claimed and started by the poll, completed in batches): runs per second. */
const lifecycleRate = async (client: Client, tenant: Tenant, workers: ReadonlyArray<Worker>, triggerId: string, seconds: number) => {
  const until = Date.now() + seconds * 1000
  let completed = 0
  const produce = async () => {
    while (Date.now() < until) {
      await client.request("POST", `/api/v1/triggers/${triggerId}/run`, { headers: { authorization: `Bearer ${tenant.apiKey}` } })
    }
  }
  const work = async (worker: Worker) => {
    const auth = { authorization: `Bearer ${worker.token}` }
    while (Date.now() < until) {
      const polled = await client.request("GET", `/api/v1/workers/${worker.id}/poll?wait=1&claim=true&max=20&start=true`, { headers: auth })
      const runs = polled.status === 200 ? polled.body.runs as Array<{ id: string }> : []
      if (runs.length === 0) continue
      const done = await client.request("POST", `/api/v1/workers/${worker.id}/runs/complete`, {
        body: { runs: runs.map((run) => ({ runId: run.id, status: "succeeded", stdout: "ok" })) },
        headers: auth
      })
      if (done.status === 200 && Date.now() < until) completed += (done.body.runs as Array<unknown>).length
    }
  }
  await Promise.all([...Array.from({ length: 4 }, produce), ...workers.map(work)])
  return completed / seconds
}

/**
 * `writers` workers each write `rate` lines a second to a run of their own
 * for `seconds`, each run followed by an SSE client; meanwhile other runs go
 * through their lifecycle. Reports whether every line reached its follower,
 * in order, how long after the worker sent it, and how much the other runs'
 * throughput dropped against a pass of the same length without logs.
 */
export const runLogs = async (o: {
  readonly baseUrl: string
  readonly writers: number
  readonly rate: number
  readonly seconds: number
  readonly lifecycleWorkers: number
}): Promise<RunLogsFigures> => {
  const databaseUrl = await createDatabase(o.baseUrl, "pts_bench_run_logs")
  const service = await startService({ DATABASE_URL: databaseUrl }, { heapProbe: false })
  const client = makeClient(service.url)
  try {
    // The other runs in an environment of their own: the log writers are never offered their runs.
    const tenant = await setupTenant(client, service.url)
    const logTenant = await setupTenant(client, service.url)
    const writers = await registerWorkers(client, logTenant, o.writers)
    const otherTrigger = await createTrigger(client, tenant, { name: "quiet" })
    const lifecycleWorkers = await registerWorkers(client, tenant, o.lifecycleWorkers)
    const lifecycleAlone = await lifecycleRate(client, tenant, lifecycleWorkers, otherTrigger, o.seconds)
    // Let the last pass's runs drain.
    await sleep(2000)

    // One run per writer, on a trigger pinned to it, claimed and started by its poll.
    const runs: Array<{ worker: Worker; runId: string }> = []
    for (const worker of writers) {
      const trigger = await createTrigger(client, logTenant, { name: "chatty", workerId: worker.id, heartbeatTimeoutSeconds: 3600 })
      expectStatus(await client.request("POST", `/api/v1/triggers/${trigger}/run`, { headers: { authorization: `Bearer ${logTenant.apiKey}` } }), 201, "log run")
      for (;;) {
        const polled = await client.request("GET", `/api/v1/workers/${worker.id}/poll?wait=2&claim=true&max=1&start=true`, { headers: { authorization: `Bearer ${worker.token}` } })
        const run = polled.status === 200 ? (polled.body.runs as Array<{ id: string }>)[0] : undefined
        if (run !== undefined) {
          runs.push({ worker, runId: run.id })
          break
        }
      }
    }
    const followers = await Promise.all(runs.map((run) => follow(service.url, run.runId, logTenant.apiKey)))
    const [written, lifecycleDuring] = await Promise.all([
      Promise.all(runs.map((run) => write(client, run.worker, run.runId, o.rate, o.seconds))),
      lifecycleRate(client, tenant, lifecycleWorkers, otherTrigger, o.seconds)
    ])
    for (const run of runs) {
      await client.request("POST", `/api/v1/workers/${run.worker.id}/runs/${run.runId}/complete`, {
        body: { status: "succeeded" },
        headers: { authorization: `Bearer ${run.worker.token}` }
      })
    }
    await Promise.race([Promise.all(followers.map((f) => f.ended)), sleep(30_000)])
    followers.forEach((f) => f.close())
    const linesSent = written.reduce((n, w) => n + w.sent, 0)
    const linesReceived = followers.reduce((n, f) => n + f.received(), 0)
    return {
      writers: o.writers,
      linesPerSecondEach: o.rate,
      seconds: o.seconds,
      linesSent,
      linesReceived,
      missing: written.reduce((n, w, i) => n + Math.max(0, w.sent - followers[i]!.lastSeq()), 0),
      duplicatesOrOutOfOrder: followers.reduce((n, f) => n + f.disorder(), 0),
      latency: summarize(followers.flatMap((f) => f.latencies)),
      appendErrors: written.reduce((n, w) => n + w.errors, 0),
      lifecycleAloneRunsPerSec: Math.round(lifecycleAlone),
      lifecycleDuringRunsPerSec: Math.round(lifecycleDuring),
      lifecycleDropPct: Math.round((1 - lifecycleDuring / lifecycleAlone) * 1000) / 10
    }
  } finally {
    client.close()
    await service.stop()
  }
}
