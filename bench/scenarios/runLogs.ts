import * as http from "node:http"
import { sendIntervalMillis } from "../../src/WorkerSdk/RunLog.js"
import { cpuMeter } from "../lib/cpu.js"
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
  /** Append calls the writers made, a second (all writers): each takes what piled up while the last was in flight. */
  readonly appendCallsPerSec: number
  /** Lifecycle throughput of other runs (request, poll-claim-start, complete): alone, then while the logs are written. */
  readonly lifecycleAloneRunsPerSec: number
  readonly lifecycleDuringRunsPerSec: number
  readonly lifecycleDropPct: number
  /**
   * CPU milliseconds per second of each pass (the service's processes, the
   * Postgres server, the bench itself): where the logs' cost lands when
   * everything shares two cores.
   */
  readonly cpuAlone: { readonly service: number; readonly postgres: number; readonly bench: number }
  readonly cpuDuring: { readonly service: number; readonly postgres: number; readonly bench: number }
  /** Each round's pair of passes; the figures above are the round with the median drop. */
  readonly rounds: ReadonlyArray<RunLogsRound>
}

export interface RunLogsRound {
  readonly aloneRunsPerSec: number
  readonly duringRunsPerSec: number
  readonly dropPct: number
  readonly cpuAlone: { readonly service: number; readonly postgres: number; readonly bench: number }
  readonly cpuDuring: { readonly service: number; readonly postgres: number; readonly bench: number }
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
 * piled up since the previous one (up to 1,000), a call starting at most
 * every `sendIntervalMillis` (200 ms) unless 1,000 lines wait.
 */
const write = async (client: Client, worker: Worker, runId: string, rate: number, seconds: number) => {
  const pending: Array<{ stream: string; text: string; at: string }> = []
  let produced = 0
  let sequence = 1
  let errors = 0
  let calls = 0
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
  let lastSend = 0
  while (producing || pending.length > 0) {
    if (pending.length === 0) {
      await sleep(5)
      continue
    }
    const wait = lastSend + sendIntervalMillis - Date.now()
    if (wait > 0 && pending.length < 1000 && producing) {
      await sleep(Math.min(wait, 10))
      continue
    }
    lastSend = Date.now()
    const lines = pending.splice(0, 1000)
    calls++
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
  return { sent: produced, errors, calls }
}

/**
 * Other runs through their lifecycle for `seconds` (requested with the API
 * key, claimed and started by the poll, completed in batches): runs per
 * second. The requests keep at most `backlog` runs not yet completed: with
 * requests unbounded the queue grew by thousands of runs a pass, and each
 * pass then ran on a different queue than the one before it.
 */
const lifecycleRate = async (client: Client, tenant: Tenant, workers: ReadonlyArray<Worker>, triggerId: string, seconds: number) => {
  const until = Date.now() + seconds * 1000
  const backlog = workers.length * 40
  let requested = 0
  let completed = 0
  let counted = 0
  const produce = async () => {
    while (Date.now() < until) {
      if (requested - completed >= backlog) {
        await sleep(1)
        continue
      }
      requested++
      const reply = await client.request("POST", `/api/v1/triggers/${triggerId}/run`, { headers: { authorization: `Bearer ${tenant.apiKey}` } })
      if (reply.status !== 201) requested--
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
      const ended = done.status === 200 ? (done.body.runs as Array<unknown>).length : 0
      completed += ended
      if (Date.now() < until) counted += ended
    }
  }
  await Promise.all([...Array.from({ length: 4 }, produce), ...workers.map(work)])
  return counted / seconds
}

/**
 * `writers` workers each write `rate` lines a second to a run of their own
 * for `seconds`, each run followed by an SSE client; meanwhile other runs go
 * through their lifecycle. Reports whether every line reached its follower,
 * in order, how long after the worker sent it, and how much the other runs'
 * throughput dropped against a pass of the same length without logs just
 * before, in `rounds` rounds (the median reported, each kept).
 */
export const runLogs = async (o: {
  readonly baseUrl: string
  readonly writers: number
  readonly rate: number
  readonly seconds: number
  readonly lifecycleWorkers: number
  readonly rounds: number
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
    // A first pass, not counted: without it the first pass alone ran on a
    // cold service (its code not yet optimised, its pools growing).
    await lifecycleRate(client, tenant, lifecycleWorkers, otherTrigger, Math.min(10, o.seconds))
    await sleep(2000)
    // One trigger per writer, pinned to it: its runs are claimed and started by that writer's poll.
    const triggers = new Map<Worker, string>()
    for (const worker of writers) {
      triggers.set(worker, await createTrigger(client, logTenant, { name: "chatty", workerId: worker.id, heartbeatTimeoutSeconds: 3600 }))
    }

    // Rounds of a pass alone then a pass with the logs: the lifecycle's rate
    // moves by a third between equal passes here, so one pair decides nothing.
    const rounds: Array<RunLogsRound> = []
    const received: Array<Follower> = []
    const sent: Array<{ sent: number; errors: number; calls: number }> = []
    for (let round = 0; round < o.rounds; round++) {
      const cpuAloneMeter = cpuMeter(service.pid)
      const alone = await lifecycleRate(client, tenant, lifecycleWorkers, otherTrigger, o.seconds)
      const cpuAlone = cpuAloneMeter(o.seconds)
      // Let the last pass's runs drain.
      await sleep(2000)

      // One run per writer, claimed and started by its poll.
      const runs: Array<{ worker: Worker; runId: string }> = []
      for (const worker of writers) {
        expectStatus(await client.request("POST", `/api/v1/triggers/${triggers.get(worker)}/run`, { headers: { authorization: `Bearer ${logTenant.apiKey}` } }), 201, "log run")
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
      const cpuDuringMeter = cpuMeter(service.pid)
      const [written, during] = await Promise.all([
        Promise.all(runs.map((run) => write(client, run.worker, run.runId, o.rate, o.seconds))),
        lifecycleRate(client, tenant, lifecycleWorkers, otherTrigger, o.seconds)
      ])
      const cpuDuring = cpuDuringMeter(o.seconds)
      for (const run of runs) {
        await client.request("POST", `/api/v1/workers/${run.worker.id}/runs/${run.runId}/complete`, {
          body: { status: "succeeded" },
          headers: { authorization: `Bearer ${run.worker.token}` }
        })
      }
      await Promise.race([Promise.all(followers.map((f) => f.ended)), sleep(30_000)])
      followers.forEach((f) => f.close())
      received.push(...followers)
      sent.push(...written)
      rounds.push({
        aloneRunsPerSec: Math.round(alone),
        duringRunsPerSec: Math.round(during),
        dropPct: Math.round((1 - during / alone) * 1000) / 10,
        cpuAlone,
        cpuDuring
      })
      await sleep(2000)
    }
    const median = <A>(items: ReadonlyArray<A>, key: (a: A) => number): A => [...items].sort((a, b) => key(a) - key(b))[Math.floor(items.length / 2)]!
    const middle = median(rounds, (r) => r.dropPct)
    return {
      writers: o.writers,
      linesPerSecondEach: o.rate,
      seconds: o.seconds,
      linesSent: sent.reduce((n, w) => n + w.sent, 0),
      linesReceived: received.reduce((n, f) => n + f.received(), 0),
      missing: sent.reduce((n, w, i) => n + Math.max(0, w.sent - received[i]!.lastSeq()), 0),
      duplicatesOrOutOfOrder: received.reduce((n, f) => n + f.disorder(), 0),
      latency: summarize(received.flatMap((f) => f.latencies)),
      appendErrors: sent.reduce((n, w) => n + w.errors, 0),
      appendCallsPerSec: Math.round(sent.reduce((n, w) => n + w.calls, 0) / (o.seconds * o.rounds)),
      lifecycleAloneRunsPerSec: middle.aloneRunsPerSec,
      lifecycleDuringRunsPerSec: middle.duringRunsPerSec,
      lifecycleDropPct: middle.dropPct,
      cpuAlone: middle.cpuAlone,
      cpuDuring: middle.cpuDuring,
      rounds
    }
  } finally {
    client.close()
    await service.stop()
  }
}
