/**
 * `npm run bench`: the service's figures beside graphile-worker's, on the
 * local Postgres (full pass) and on the embedded database (shorter pass).
 * Prints a table and writes bench/results/latest.json. Benchmarks, not tests:
 * nothing here fails on a slow figure.
 *
 * Options (env): BENCH_RUNS (5000), BENCH_WORKERS (8), BENCH_SUPERVISE (10000),
 * BENCH_DB (both | pg | embedded), DATABASE_URL (the server to create bench databases on),
 * BENCH_DB_SUFFIX (appended to every bench database's name: two checkouts benching on one server),
 * BENCH_BULK_REPLAY_RUNS (10000 failed runs replayed in bulk beside the lifecycle),
 * BENCH_SCHEDULES (10000 scheduled triggers) and BENCH_SCHEDULES_IDLE_SECONDS (60) for the schedules scenario,
 * BENCH_DELAYED (100000 delayed runs), BENCH_DELAYED_DUE (1000 of them due in one second) and
 * BENCH_DELAYED_IDLE_SECONDS (60) for the delayed scenario,
 * BENCH_IDLE_POLLS (10000 waiting workers), BENCH_IDLE_POLLS_SECONDS (120) and BENCH_IDLE_POLLS_WEB_CONCURRENCY
 * (unset: npm start's default) for idle-polls; BENCH_STREAMING_RUNS (BENCH_RUNS), BENCH_STREAMING_WORKERS (8),
 * BENCH_STREAMING_SLOTS (50 per worker), BENCH_STREAMING_IDLE (10000 connected workers), BENCH_STREAMING_IDLE_SECONDS (60)
 * and BENCH_STREAMING_WEB_CONCURRENCY (unset: npm start's default) for streaming, streaming-sdk and streaming-idle;
 * BENCH_SDK_PROCESSES (1 worker-SDK process hosting every worker; more split the workers among them) for streaming-sdk;
 * BENCH_FLOW_KEYS (100 keys) and BENCH_FLOW_QUEUED (100000 waiting runs, Postgres only) for flow-control;
 * BENCH_LOG_WRITERS (10), BENCH_LOG_RATE (1000 lines/s each), BENCH_LOG_SECONDS (30) and
 * BENCH_LOG_LIFECYCLE_WORKERS (4) and BENCH_LOG_ROUNDS (5) for run-logs.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import { createDatabase, serverVersion } from "./lib/database.js"
import { makeClient } from "./lib/http.js"
import { startReceiver } from "./lib/receiver.js"
import { startService } from "./lib/server.js"
import { createTrigger, registerWorkers, setupTenant } from "./lib/setup.js"
import { benchGraphile } from "./reference/graphile.js"
import { history } from "./scenarios/history.js"
import { bulkReplay } from "./scenarios/bulkReplay.js"
import { idleDispatch, lifecycle } from "./scenarios/lifecycle.js"
import { supervision } from "./scenarios/supervision.js"
import { steps } from "./scenarios/steps.js"
import { webhookDrain } from "./scenarios/webhookDrain.js"
import { requests } from "./scenarios/requests.js"
import { schedules } from "./scenarios/schedules.js"
import { processesPass } from "./scenarios/processes.js"
import { delayed } from "./scenarios/delayed.js"
import { idlePolls } from "./scenarios/idlePolls.js"
import { streaming, streamingIdle } from "./scenarios/streaming.js"
import { streamingSdk } from "./scenarios/streamingSdk.js"
import { flowControl } from "./scenarios/flowControl.js"
import { runLogs, type RunLogsRound } from "./scenarios/runLogs.js"

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback)
// The local server over its Unix socket when there is one (how a service on the
// database's own machine connects; each loopback TCP write costs this VM about
// 0.15 ms of CPU), else over TCP. graphile-worker gets the same URL.
const socketDir = "/var/run/postgresql"
const baseUrl = process.env.DATABASE_URL ??
  (fs.existsSync(`${socketDir}/.s.PGSQL.5432`)
    ? `postgres://postgres@localhost/postgres?host=${socketDir}`
    : "postgres://postgres@127.0.0.1:5432/postgres")
const mode = process.env.BENCH_DB ?? "both"
// BENCH_SCENARIOS: a comma-separated subset of warm-up, lifecycle, batched, idle, loaded, webhook, drain, steps, supervision,
// requests, flow-control, schedules, bulk-replay, delayed, history, metrics-off, processes, idle-polls, streaming, streaming-sdk, streaming-idle, run-logs, graphile.
const scenarios = (process.env.BENCH_SCENARIOS ?? "").split(",").filter((s) => s.length > 0)
const wanted = (name: string) => scenarios.length === 0 || scenarios.includes(name)

const machine = {
  cpus: `${os.cpus().length} × ${os.cpus()[0]?.model ?? "unknown"}`,
  memoryGb: Math.round(os.totalmem() / 2 ** 30),
  node: process.version,
  postgres: "unknown",
  postgresVia: new URL(baseUrl).searchParams.get("host")?.startsWith("/") ? "Unix socket" : "TCP"
}

interface Sizes {
  readonly runs: number
  readonly workers: number
  readonly supervise: number
  readonly latency: number
  readonly requests: number
}

const passOn = async (label: string, serviceEnv: Record<string, string>, sizes: Sizes) => {
  const service = await startService(serviceEnv)
  const client = makeClient(service.url)
  const receiver = await startReceiver()
  try {
    const tenant = await setupTenant(client, service.url)
    const workers = await registerWorkers(client, tenant, sizes.workers)
    // The idle-dispatch worker lives in an environment of its own: in the
    // lifecycle environment it would count as online (registered, so seen)
    // without ever polling there, and every ninth run would sit out the claim
    // timeout assigned to it.
    const idleTenant = await setupTenant(client, service.url)
    const [dispatchWorker] = await registerWorkers(client, idleTenant, 1)
    const hookTrigger = await createTrigger(client, tenant, { webhookUrl: receiver.url, webhookSecret: "bench-secret-0123456789abcdef" })
    const plainTrigger = await createTrigger(client, idleTenant, { workerId: dispatchWorker!.id })
    const common = { client, tenant, receiver, producers: 16, servicePid: service.pid }

    const step = async <A>(name: string, f: () => Promise<A>): Promise<A | undefined> => {
      if (!wanted(name)) return undefined
      process.stderr.write(`[${label}] ${name}\n`)
      const result = await f()
      process.stderr.write(`[${label}] ${name}: ${JSON.stringify(result)}\n`)
      return result
    }
    await step("warm-up", () => lifecycle({ ...common, workers, triggerId: hookTrigger, runs: Math.min(500, sizes.runs), batch: 0, rate: 0 }))
    const stepwise = await step("lifecycle", () => lifecycle({ ...common, workers, triggerId: hookTrigger, runs: sizes.runs, batch: 0, rate: 0 }))
    const batched = await step("batched", () => lifecycle({ ...common, workers, triggerId: hookTrigger, runs: sizes.runs, batch: 20, rate: 0 }))
    const idle = await step("idle", () => idleDispatch({ client, tenant: idleTenant, triggerId: plainTrigger, worker: dispatchWorker!, samples: sizes.latency }))
    const best = Math.max(stepwise?.runsPerSec ?? 0, batched?.runsPerSec ?? 0) || 500
    const loadedRate = Math.round(best * 0.8)
    const loaded = await step("loaded", () => lifecycle({ ...common, workers, triggerId: hookTrigger, runs: Math.min(sizes.runs, loadedRate * 5), batch: 20, rate: loadedRate }))
    const webhook500 = await step("webhook", () => lifecycle({ ...common, workers, triggerId: hookTrigger, runs: 2500, batch: 20, rate: 500 }))
    // Seeding needs the database from outside the service: Postgres passes only.
    const databaseUrl = serviceEnv.DATABASE_URL ?? ""
    // Flow control: no limit vs perKey 1 over 100 keys, back to back; wait reasons among 100,000 queued.
    const flow = await step("flow-control", () =>
      flowControl({
        ...common,
        serviceUrl: service.url,
        databaseUrl: databaseUrl === "" ? undefined : databaseUrl,
        workers,
        runs: sizes.runs,
        keys: env("BENCH_FLOW_KEYS", 100),
        queued: env("BENCH_FLOW_QUEUED", 100_000),
        calls: 200
      }))
    const drain = databaseUrl === "" ? undefined : await step("drain", () =>
      webhookDrain({ databaseUrl, triggerId: hookTrigger, receiver, deliveries: 10_000, servicePid: service.pid }))
    const supervised = await step("supervision", () => supervision({
      client,
      service,
      tenant,
      workers,
      runs: sizes.supervise,
      heartbeatTimeoutSeconds: 30,
      createTrigger: (fields) => createTrigger(client, tenant, fields)
    }))
    // After supervision: its RSS figures want a service that has not just run thousands of runs.
    const perStep = await step("steps", () =>
      steps({ client, serviceUrl: service.url, receiver, servicePid: service.pid, runs: Math.min(sizes.runs, 2000) }))
    const perRequest = await step("requests", () =>
      requests({ client, servicePid: service.pid, tenant, worker: workers[0]!, requests: sizes.requests }))
    // Scheduled triggers at rest (issue 19): memory and idle CPU with 10,000 of them (Postgres passes only, bulk SQL).
    const scheduled = databaseUrl === "" ? undefined : await step("schedules", () =>
      schedules({
        client,
        service,
        databaseUrl,
        triggers: env("BENCH_SCHEDULES", 10_000),
        idleSeconds: env("BENCH_SCHEDULES_IDLE_SECONDS", 60)
      }))
    // A bulk replay of BENCH_BULK_REPLAY_RUNS (10,000) failed runs beside the one-call-per-step lifecycle (Postgres passes only).
    const replayed = databaseUrl === "" ? undefined : await step("bulk-replay", () =>
      bulkReplay({
        client,
        serviceUrl: service.url,
        databaseUrl,
        runs: env("BENCH_BULK_REPLAY_RUNS", 10_000),
        lifecycleAloneRunsPerSec: stepwise?.runsPerSec ?? 0,
        lifecycle: () => lifecycle({ ...common, workers, triggerId: hookTrigger, runs: sizes.runs, batch: 0, rate: 0 })
      }))
    // Delayed runs at rest: idle CPU with 100,000 waiting, and how late one due second's runs are placed.
    const waiting = databaseUrl === "" ? undefined : await step("delayed", () =>
      delayed({
        client,
        service,
        databaseUrl,
        runs: env("BENCH_DELAYED", 100_000),
        dueTogether: env("BENCH_DELAYED_DUE", 1000),
        idleSeconds: env("BENCH_DELAYED_IDLE_SECONDS", 60)
      }))
    // Last: it leaves a million runs behind (BENCH_SCENARIOS=history; Postgres passes only, bulk SQL from outside).
    const past = databaseUrl === "" ? undefined : await step("history", () =>
      history({ client, serviceUrl: service.url, databaseUrl, runs: env("BENCH_HISTORY_RUNS", 1_000_000), calls: 15 }))
    return {
      stepwise,
      batched,
      idle,
      loaded: loaded && { rate: loadedRate, ...loaded },
      webhook500,
      flow,
      drain,
      steps: perStep,
      supervised,
      requests: perRequest,
      schedules: scheduled,
      bulkReplay: replayed,
      delayed: waiting,
      history: past
    }
  } finally {
    client.close()
    await receiver.close()
    await service.stop()
  }
}

const metricsOffPass = async (databaseUrl: string, sizes: Sizes) => {
  const service = await startService({ DATABASE_URL: databaseUrl, METRICS_ENABLED: "false", WEB_CONCURRENCY: "1" })
  const client = makeClient(service.url)
  const receiver = await startReceiver()
  try {
    const tenant = await setupTenant(client, service.url)
    const workers = await registerWorkers(client, tenant, sizes.workers)
    const hookTrigger = await createTrigger(client, tenant, { webhookUrl: receiver.url, webhookSecret: "bench-secret-0123456789abcdef" })
    const common = { client, tenant, receiver, producers: 16, servicePid: service.pid, workers, triggerId: hookTrigger, batch: 0, rate: 0 }
    await lifecycle({ ...common, runs: Math.min(500, sizes.runs) })
    return await lifecycle({ ...common, runs: sizes.runs })
  } finally {
    client.close()
    await receiver.close()
    await service.stop()
  }
}

const main = async () => {
  const results: Record<string, unknown> = { date: new Date().toISOString(), machine }
  if (mode === "both" || mode === "pg") {
    const sizes = {
      runs: env("BENCH_RUNS", 5000),
      workers: env("BENCH_WORKERS", 8),
      supervise: env("BENCH_SUPERVISE", 10000),
      latency: 1000,
      requests: env("BENCH_REQUESTS", 5000)
    }
    const serviceDb = await createDatabase(baseUrl, "pts_bench")
    machine.postgres = serverVersion
    // One process: these figures (heap after GC, RSS, CPU per run) are one process's, comparable
    // from run to run and with graphile-worker's one; `processes` compares it with npm start's default.
    results.postgres = await passOn("postgres", { DATABASE_URL: serviceDb, WEB_CONCURRENCY: "1" }, sizes)
    save(results)
    if (wanted("processes")) {
      // The same lifecycle on WEB_CONCURRENCY=1 and on npm start's default (one process per core), in the same run.
      results.processes = []
      for (const webConcurrency of ["1", undefined]) {
        process.stderr.write(`[postgres] processes, WEB_CONCURRENCY=${webConcurrency ?? "default"}\n`)
        const databaseUrl = await createDatabase(baseUrl, `pts_bench_processes_${webConcurrency ?? "default"}`)
        const figures = await processesPass({ databaseUrl, webConcurrency, runs: sizes.runs, workers: sizes.workers })
        process.stderr.write(`[postgres] processes: ${JSON.stringify(figures)}\n`)
        ;(results.processes as Array<unknown>).push(figures)
        save(results)
      }
    }
    // A scenario of the Postgres pass run on its own service: logged, kept under `key`, saved at once.
    const scenario = async (name: string, key: string, run: () => Promise<unknown>) => {
      if (!wanted(name)) return
      process.stderr.write(`[postgres] ${name}\n`)
      results[key] = await run()
      process.stderr.write(`[postgres] ${name}: ${JSON.stringify(results[key])}\n`)
      save(results)
    }
    await scenario("idle-polls", "idlePolls", async () =>
      idlePolls({
        databaseUrl: await createDatabase(baseUrl, "pts_bench_idle_polls"),
        workers: env("BENCH_IDLE_POLLS", 10_000),
        webConcurrency: process.env.BENCH_IDLE_POLLS_WEB_CONCURRENCY,
        seconds: env("BENCH_IDLE_POLLS_SECONDS", 120)
      }))
    // The lifecycle with channel workers (runs pushed over the WebSocket), as npm start runs the service.
    await scenario("streaming", "streaming", () =>
      streaming({
        baseUrl,
        webConcurrency: process.env.BENCH_STREAMING_WEB_CONCURRENCY,
        runs: env("BENCH_STREAMING_RUNS", sizes.runs),
        workers: env("BENCH_STREAMING_WORKERS", 8),
        slots: env("BENCH_STREAMING_SLOTS", 50)
      }))
    // The same lifecycle with the worker SDK as the workers, in processes of their own.
    await scenario("streaming-sdk", "streamingSdk", () =>
      streamingSdk({
        baseUrl,
        webConcurrency: process.env.BENCH_STREAMING_WEB_CONCURRENCY,
        runs: env("BENCH_STREAMING_RUNS", sizes.runs),
        workers: env("BENCH_STREAMING_WORKERS", 8),
        slots: env("BENCH_STREAMING_SLOTS", 50),
        hosts: env("BENCH_SDK_PROCESSES", 1)
      }))
    await scenario("streaming-idle", "streamingIdle", () =>
      streamingIdle({
        baseUrl,
        workers: env("BENCH_STREAMING_IDLE", 10_000),
        webConcurrency: process.env.BENCH_STREAMING_WEB_CONCURRENCY,
        seconds: env("BENCH_STREAMING_IDLE_SECONDS", 60)
      }))
    // Run logs: chatty workers with a follower each, beside other runs' lifecycle.
    await scenario("run-logs", "runLogs", () =>
      runLogs({
        baseUrl,
        writers: env("BENCH_LOG_WRITERS", 10),
        rate: env("BENCH_LOG_RATE", 1000),
        seconds: env("BENCH_LOG_SECONDS", 30),
        lifecycleWorkers: env("BENCH_LOG_LIFECYCLE_WORKERS", 4),
        rounds: env("BENCH_LOG_ROUNDS", 5)
      }))
    // The same one-call-per-step lifecycle on a service with metrics off: what recording them costs.
    await scenario("metrics-off", "metricsOff", async () =>
      metricsOffPass(await createDatabase(baseUrl, "pts_bench_nometrics"), sizes))
    if (wanted("graphile")) {
      process.stderr.write("[reference] graphile-worker\n")
      const graphileDb = await createDatabase(baseUrl, "pts_bench_graphile")
      // At the concurrency a user would give it, with as many jobs as our runs.
      const concurrency = env("BENCH_GRAPHILE_CONCURRENCY", 10)
      results.graphile = {
        version: JSON.parse(fs.readFileSync("node_modules/graphile-worker/package.json", "utf8")).version,
        concurrency,
        ...(await benchGraphile(graphileDb, { jobs: sizes.runs, concurrency, latencySamples: 1000 }))
      }
      save(results)
    }
  }
  if (mode === "both" || mode === "embedded") {
    const sizes = { runs: 1000, workers: 4, supervise: 2000, latency: 200, requests: 2000 }
    results.embedded = await passOn("embedded", { DATABASE_URL: "" }, sizes)
  }
  save(results)
  printTable(results)
}

const save = (results: unknown) => {
  fs.mkdirSync("bench/results", { recursive: true })
  fs.writeFileSync("bench/results/latest.json", JSON.stringify(results, null, 2))
}

const printTable = (r: any) => {
  const rows: Array<[string, string, string]> = []
  const add = (metric: string, ours: unknown, reference = "") => rows.push([metric, String(ours), reference])
  for (const db of ["postgres", "embedded"]) {
    const x = r[db]
    if (!x) continue
    if (!x.stepwise || !x.batched || !x.idle || !x.loaded || !x.webhook500 || !x.supervised) {
      // A pass of some scenarios only (BENCH_SCENARIOS): print what it has.
      printPartial(db, x, add)
      continue
    }
    const g = db === "postgres" ? r.graphile : undefined
    const ratio = (v: number, ref: number) => (ref ? ` (${(v / ref).toFixed(2)}×)` : "")
    add(`[${db}] lifecycle runs/s, one call per step`, `${x.stepwise.runsPerSec}${g ? ratio(x.stepwise.runsPerSec, g.unbatchedJobsPerSec) : ""}`, g ? `graphile unbatched ${Math.round(g.unbatchedJobsPerSec)} jobs/s` : "")
    // The issue's target compares against graphile's unbatched figure; its batched one is printed beside it.
    const batchedRatios = g
      ? ` (${(x.batched.runsPerSec / g.unbatchedJobsPerSec).toFixed(2)}× unbatched, ${(x.batched.runsPerSec / g.batchedJobsPerSec).toFixed(2)}× batched)`
      : ""
    add(`[${db}] lifecycle runs/s, batched poll`, `${x.batched.runsPerSec}${batchedRatios}`, g ? `graphile batched ${Math.round(g.batchedJobsPerSec)} jobs/s` : "")
    add(`[${db}] dispatch at idle p50/p95/p99 ms`, `${x.idle.p50} / ${x.idle.p95} / ${x.idle.p99}`, g ? `graphile ${g.dispatch.p50} / ${g.dispatch.p95} / ${g.dispatch.p99}` : "")
    add(`[${db}] dispatch at ${x.loaded.rate}/s p50/p99 ms`, `${x.loaded.dispatch.p50} / ${x.loaded.dispatch.p99}`)
    add(`[${db}] webhook p50/p99 ms, runs requested at 500/s (reached ${x.webhook500.runsPerSec}/s)`, `${x.webhook500.webhook.p50} / ${x.webhook500.webhook.p99}`)
    const cpu = (c: any) => c ? `${c.service} / ${c.postgres} / ${c.bench}; ${c.serviceWrites ?? "n/a"}` : "n/a"
    add(`[${db}] CPU ms per run: service / Postgres / bench; service write syscalls per run, one call per step`, cpu(x.stepwise.cpuMsPerRun))
    add(`[${db}] CPU ms per run: service / Postgres / bench; service write syscalls per run, batched poll`, cpu(x.batched.cpuMsPerRun))
    printFlow(db, x, add)
    if (x.drain) {
      add(`[${db}] webhook delivery loop alone: deliveries/s (10,000 queued at once)`, `${x.drain.deliveriesPerSec}`)
      add(`[${db}] CPU ms per delivery: service / Postgres / bench`, cpu(x.drain.cpuMsPerDelivery))
    }
    for (const [name, f] of Object.entries<any>(x.steps ?? {})) {
      add(`[${db}] step "${name}": per s, CPU ms per run (service / Postgres / bench)`, `${f.perSec}, ${cpu(f.cpuMsPerRun)}`)
    }
    add(`[${db}] webhook deliveries/s under load`, `${Math.max(x.stepwise.deliveredPerSec, x.batched.deliveredPerSec)}`)
    add(`[${db}] supervised runs (running when read) / RSS idle → supervising (Δ MB), peak`, `${x.supervised.runs} (${x.supervised.runningAtReading}) / ${x.supervised.rssIdleMb} → ${x.supervised.rssSupervisingMb} (${x.supervised.rssDeltaMb}), ${x.supervised.rssPeakMb}`)
    add(`[${db}] supervised runs / heap after full GC idle → supervising (Δ MB)`, `${x.supervised.runs} / ${x.supervised.heapIdleMb} → ${x.supervised.heapSupervisingMb} (${x.supervised.heapDeltaMb})`)
    add(`[${db}] heartbeat p50/p99 ms`, `${x.supervised.heartbeat.p50} / ${x.supervised.heartbeat.p99}`)
    add(`[${db}] timed_out after deadline p50/p99/max ms`, `${x.supervised.lateness.p50} / ${x.supervised.lateness.p99} / ${x.supervised.lateness.max} (${x.supervised.timedOut} runs)`)
    const bare = (x.requests ?? []).find((f: any) => f.route.startsWith("bare"))
    for (const f of x.requests ?? []) {
      const times = bare && f !== bare ? ` (${(f.cpuMsPerRequest / bare.cpuMsPerRequest).toFixed(1)}× bare)` : ""
      add(`[${db}] ${f.route}: requests/s, service CPU ms per request`, `${f.perSec}, ${f.cpuMsPerRequest}${times}`)
    }
    if (db === "postgres" && r.metricsOff) {
      const on = x.stepwise
      const off = r.metricsOff
      add(
        `[${db}] metrics on vs off (METRICS_ENABLED=false): runs/s, service CPU ms per run`,
        `${on.runsPerSec} vs ${off.runsPerSec} (${((on.runsPerSec / off.runsPerSec - 1) * 100).toFixed(1)} %), ${on.cpuMsPerRun.service} vs ${off.cpuMsPerRun.service}`
      )
    }
    printPartial(db, x, add)
    add(`[${db}] request errors`, `${x.stepwise.errors + x.batched.errors + x.loaded.errors + x.webhook500.errors}`)
    add(`[${db}] runs lost (requested, never received by a worker)`, `${x.stepwise.lost + x.batched.lost + x.loaded.lost + x.webhook500.lost}`)
  }
  for (const p of r.processes ?? []) {
    add(
      `[postgres] processes: WEB_CONCURRENCY=${p.webConcurrency} (${p.processes}): runs/s, service CPU ms per run / per HTTP request (all processes)`,
      `${p.runsPerSec}, ${p.serviceCpuMsPerRun} / ${p.serviceCpuMsPerRequest} (${p.requestsPerRun} requests per run)`
    )
  }
  if (r.idlePolls) {
    const i = r.idlePolls
    add(
      `[postgres] ${i.workers} idle long-polls (wait=30), WEB_CONCURRENCY=${i.webConcurrency}: service RSS idle → holding MB (per process)`,
      `${i.rssIdleMb} → ${i.rssHoldingMb} (${i.rssHoldingPerProcessMb.join(" + ")})`
    )
    add(
      `[postgres] ${i.workers} idle long-polls: answered / failed; empty answers late p50/p99/max ms; health p50/max ms; dispatch to a waiting poll p50/max ms`,
      `${i.answered} / ${i.failed} (waiting at once ${i.waitingAtSteadyState}, at most ${i.maxWaiting}); ${i.lateMs.p50} / ${i.lateMs.p99} / ${i.lateMs.max}; ${i.healthMs.p50} / ${i.healthMs.max}; ${i.dispatchMs.p50} / ${i.dispatchMs.max}`
    )
  }
  if (r.streaming) {
    const s = r.streaming
    const g = r.graphile
    const cpu = `${s.cpuMsPerRun.service} / ${s.cpuMsPerRun.postgres} / ${s.cpuMsPerRun.bench}; ${s.cpuMsPerRun.serviceWrites}`
    add(
      `[postgres] streaming lifecycle (channel workers: ${s.workers} × ${s.slotsPerWorker} slots, ${s.client}), WEB_CONCURRENCY=${s.webConcurrency} (${s.processes}): runs/s`,
      `${s.runsPerSec}${g ? ` (${(s.runsPerSec / g.unbatchedJobsPerSec).toFixed(2)}× unbatched, ${(s.runsPerSec / g.batchedJobsPerSec).toFixed(2)}× batched)` : ""}`,
      g ? `graphile unbatched ${Math.round(g.unbatchedJobsPerSec)} / batched ${Math.round(g.batchedJobsPerSec)} jobs/s` : ""
    )
    add(`[postgres] streaming: CPU ms per run service (all processes) / Postgres / bench; service write syscalls per run; dispatch p50/p99 ms; errors, lost`, `${cpu}; ${s.dispatch.p50} / ${s.dispatch.p99}; ${s.errors}, ${s.lost}`)
  }
  if (r.streamingSdk) {
    const s = r.streamingSdk
    const g = r.graphile
    const c = s.cpuMsPerRun
    add(
      `[postgres] SDK lifecycle (${s.client}: ${s.workerProcesses} processes, ${s.workers} workers × ${s.slotsPerWorker} slots), WEB_CONCURRENCY=${s.webConcurrency} (${s.processes}): runs/s`,
      `${s.runsPerSec}${g ? ` (${(s.runsPerSec / g.unbatchedJobsPerSec).toFixed(2)}× unbatched, ${(s.runsPerSec / g.batchedJobsPerSec).toFixed(2)}× batched)` : ""}`,
      g ? `graphile unbatched ${Math.round(g.unbatchedJobsPerSec)} / batched ${Math.round(g.batchedJobsPerSec)} jobs/s` : ""
    )
    add(
      `[postgres] SDK lifecycle: CPU ms per run service / Postgres / bench / SDK workers; write syscalls per run service / SDK workers; dispatch p50/p99 ms; errors`,
      `${c.service} / ${c.postgres} / ${c.bench} / ${c.workers}; ${c.serviceWrites} / ${c.workerWrites}; ${s.dispatch.p50} / ${s.dispatch.p99}; ${s.errors}`
    )
  }
  if (r.runLogs) {
    const l = r.runLogs
    add(
      `[postgres] run logs: ${l.writers} workers × ${l.linesPerSecondEach} lines/s for ${l.seconds} s, one SSE follower each: lines sent / received, missing, out of order; latency p50/p95/p99 ms; append calls/s`,
      `${l.linesSent} / ${l.linesReceived}, ${l.missing}, ${l.duplicatesOrOutOfOrder}; ${l.latency.p50} / ${l.latency.p95} / ${l.latency.p99}; ${l.appendCallsPerSec}`
    )
    add(
      `[postgres] run logs: other runs' lifecycle alone → during the logs, runs/s (drop %), the round with the median drop of ${l.rounds.length}`,
      `${l.lifecycleAloneRunsPerSec} → ${l.lifecycleDuringRunsPerSec} (${l.lifecycleDropPct} %)`
    )
    add(`[postgres] run logs: each round, alone → during runs/s (drop %)`, l.rounds.map((r: RunLogsRound) => `${r.aloneRunsPerSec} → ${r.duringRunsPerSec} (${r.dropPct} %)`).join("; "))
    const cpu = (c: typeof l.cpuAlone) => `${Math.round(c.service)} / ${Math.round(c.postgres)} / ${Math.round(c.bench)}`
    add(
      `[postgres] run logs: CPU ms per second, service / Postgres / bench: alone → during the logs`,
      `${cpu(l.cpuAlone)} → ${cpu(l.cpuDuring)}`
    )
  }
  if (r.streamingIdle) {
    const i = r.streamingIdle
    add(
      `[postgres] ${i.workers} idle channel workers, WEB_CONCURRENCY=${i.webConcurrency}: connected / errors; service RSS idle → holding MB (per process)`,
      `${i.connected} / ${i.errors}; ${i.rssIdleMb} → ${i.rssHoldingMb} (${i.rssHoldingPerProcessMb.join(" + ")})`
    )
    add(
      `[postgres] ${i.workers} idle channel workers over ${i.seconds} s: service / Postgres CPU ms per s, transactions/s; dispatch to one p50/max ms; health p50/max ms`,
      `${i.idleServiceCpuMsPerSec} / ${i.idlePostgresCpuMsPerSec}, ${i.idleTransactionsPerSec}; ${i.dispatchMs.p50} / ${i.dispatchMs.max}; ${i.healthMs.p50} / ${i.healthMs.max}`
    )
  }
  const w = [Math.max(...rows.map((x) => x[0].length)), Math.max(...rows.map((x) => x[1].length))]
  process.stdout.write(`machine: ${r.machine.cpus}, ${r.machine.memoryGb} GB, Node ${r.machine.node}, PostgreSQL ${r.machine.postgres} (via ${r.machine.postgresVia})\n`)
  if (r.graphile) process.stdout.write(`reference: graphile-worker ${r.graphile.version}, concurrency ${r.graphile.concurrency}, ${r.postgres?.stepwise?.runs ?? "?"} jobs\n`)
  for (const [a, b, c] of rows) process.stdout.write(`${a.padEnd(w[0]!)}  ${b.padEnd(w[1]!)}  ${c}\n`)
  process.stdout.write("written: bench/results/latest.json\n")
}

const printFlow = (db: string, x: any, add: (metric: string, ours: unknown) => void) => {
  const f = x.flow
  if (!f) return
  add(`[${db}] flow control: lifecycle runs/s no limit → perKey 1 over ${f.perKey.keys} keys (ratio, target ≥ 0.8)`, `${f.noLimit.runsPerSec} → ${f.perKey.runsPerSec} (${f.ratio})`)
  if (f.waitReason) add(`[${db}] flow control: GET /runs/{id} waitReason among ${f.waitReason.queued} queued p50/p95 ms (target p50 ≤ 20)`, `${f.waitReason.p50} / ${f.waitReason.p95} (${f.waitReason.reason})`)
}

const printPartial = (db: string, x: any, add: (metric: string, ours: unknown) => void) => {
  printFlow(db, x, add)
  if (x.schedules) {
    const s = x.schedules
    const cpu = (c: any) => `${c.service} / ${c.postgres} / ${c.bench}`
    add(`[${db}] ${s.triggers} scheduled triggers: service RSS / heap after GC, before → after (MB)`, `${s.rssBeforeMb} → ${s.rssAfterMb} / ${s.heapBeforeMb} → ${s.heapAfterMb}`)
    add(`[${db}] idle CPU ms per s (service / Postgres / bench) over ${s.idleSeconds} s, without → with them`, `${cpu(s.idleCpuMsPerSecondBefore)} → ${cpu(s.idleCpuMsPerSecondAfter)}; ${s.runsFired} runs fired`)
  }
  if (x.bulkReplay) {
    const b = x.bulkReplay
    add(`[${db}] bulk replay of ${b.runs} failed runs: s (done / failed / replays made)`, `${b.seconds} (${b.done} / ${b.failed} / ${b.replays})`)
    add(`[${db}] lifecycle runs/s alone → beside the bulk replay (kept %)`, `${b.lifecycleAloneRunsPerSec} → ${b.lifecycleBesideRunsPerSec} (${b.lifecycleKeptPct} %)`)
  }
  if (x.delayed) {
    const d = x.delayed
    add(
      `[${db}] ${d.runs} delayed runs waiting: service idle CPU, % of a core (ms/s without → with them); ${d.dueTogether} due in one second: placed late p50/p99/max ms (not placed)`,
      `${d.idleCpuPercentOfCore} % (${d.idleCpuMsPerSecondBefore.service} → ${d.idleCpuMsPerSecondAfter.service}); ${d.placedLateMs.p50} / ${d.placedLateMs.p99} / ${d.placedLateMs.max} (${d.notPlaced})`
    )
  }
  if (!x.history) return
  const h = x.history
  add(`[${db}] history: ${h.runs} runs + ${h.auditRows} audit rows loaded in s`, `${h.loadSeconds}; first overview after loading ${h.firstOverviewMs} ms`)
  for (const [name, ms] of Object.entries<number>(h.loaded)) add(`[${db}] history: ${name}, median ms empty → loaded`, `${h.empty[name]} → ${ms}`)
  const paint = h.runsPageFirstPaint
  add(`[${db}] history: dashboard runs page in Chromium, navigation → first rows p50 / max ms`, paint ? `${paint.p50Ms} / ${paint.maxMs} (${paint.loads} loads)` : "n/a (no /usr/bin/chromium)")
}

main().then(() => process.exit(0), (error) => {
  process.stderr.write(`bench failed: ${error?.stack ?? error}\n`)
  process.exit(1)
})
