import { type Receiver, type Reply, request, sleep, type TestDatabase, waitUntil } from "../support/Process.js"

/**
 * The load the fault-injection tests put on real service processes: producers
 * pushing runs (each with its own Idempotency-Key, retried until answered, so
 * a run is pushed exactly once whatever the faults), and workers polling,
 * starting and completing runs over HTTP. Workers "lose track" of the runs in
 * their hands whenever a call gets no answer, as a real worker whose server
 * vanished would; supervision must then time those runs out.
 */

export interface Tenant {
  readonly environmentId: string
  readonly apiKey: string
  readonly webhookTriggerId: string
  readonly plainTriggerId: string
  readonly workers: ReadonlyArray<{ readonly id: string; readonly token: string }>
}

const expect2xx = (reply: Reply, what: string): any => {
  if (reply.status < 200 || reply.status > 299) throw new Error(`${what}: HTTP ${reply.status} ${JSON.stringify(reply.body ?? reply.error)}`)
  return reply.body
}

export const webhookSecret = "reliability-webhook-secret-0123456789"

/**
 * A user, workspace, environment, admin `pwk_` key, `workers` registered
 * workers and two triggers: one with a webhook (and one auto-retry), one without.
 */
export const setupTenant = async (baseUrl: string, receiverUrl: string, workers: number): Promise<Tenant> => {
  const origin = new URL(baseUrl).origin.replace("127.0.0.1", "localhost")
  const email = `rel-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`
  const reg = await fetch(`${baseUrl}/api/v1/auth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password: "reliability password" })
  })
  if (reg.status !== 201) throw new Error(`register: ${reg.status}`)
  const headers = { cookie: (reg.headers.get("set-cookie") ?? "").split(";")[0]!, origin }
  const ws = expect2xx(await request(baseUrl, "POST", "/api/v1/workspaces", { body: { name: "rel" }, headers }), "workspace")
  const env = expect2xx(
    await request(baseUrl, "POST", `/api/v1/workspaces/${ws.id}/environments`, { body: { name: "rel" }, headers }),
    "environment"
  )
  const key = expect2xx(
    await request(baseUrl, "POST", `/api/v1/environments/${env.id}/api-keys`, {
      body: { name: "rel", prefix: "pwk", role: "admin" },
      headers
    }),
    "api key"
  )
  const apiKey = key.token as string
  const trigger = async (fields: Record<string, unknown>) =>
    expect2xx(
      await request(baseUrl, "POST", `/api/v1/environments/${env.id}/triggers`, {
        body: { name: "rel", timeoutSeconds: 60, heartbeatTimeoutSeconds: 5, ...fields },
        bearer: apiKey
      }),
      "trigger"
    ).id as string
  const webhookTriggerId = await trigger({ webhookUrl: receiverUrl, webhookSecret, maxRetries: 1 })
  const plainTriggerId = await trigger({})
  const registered: Array<{ id: string; token: string }> = []
  for (let i = 0; i < workers; i++) {
    const wrk = expect2xx(
      await request(baseUrl, "POST", `/api/v1/environments/${env.id}/api-keys`, {
        body: { name: `worker-${i}`, prefix: "wrk" },
        bearer: apiKey
      }),
      "wrk token"
    )
    const worker = expect2xx(
      await request(baseUrl, "POST", "/api/v1/workers/register", { body: { registrationToken: wrk.token, label: `rel-${i}` } }),
      "register worker"
    )
    registered.push({ id: worker.worker.id, token: worker.token })
  }
  return { environmentId: env.id, apiKey, webhookTriggerId, plainTriggerId, workers: registered }
}

/** Counters of everything the clients saw; the figures the tests log. */
export class Stats {
  readonly statuses = new Map<number, number>()
  readonly serverErrors: Array<string> = []
  /** Error answers without the contract's `{error}` body. */
  readonly malformed: Array<string> = []
  /** Runs each worker completed with a 200, and the status it sent. */
  readonly completed = new Map<string, { worker: string; status: string }>()
  /** A completed run handed to a worker again (must stay empty). */
  readonly seenAgain: Array<string> = []
  /** Second 200 on `complete` for one run (must stay empty). */
  readonly completedTwice: Array<string> = []
  readonly pushed = new Map<string, string>()
  lostTrack = 0
  conflicts = 0
  maxLatencyMs = 0

  note(reply: Reply, what: string) {
    this.statuses.set(reply.status, (this.statuses.get(reply.status) ?? 0) + 1)
    if (reply.status !== 0) this.maxLatencyMs = Math.max(this.maxLatencyMs, reply.ms)
    if (reply.status >= 500 && reply.status !== 503) this.serverErrors.push(`${what} → ${reply.status} ${JSON.stringify(reply.body)}`)
    if (reply.status >= 400 && typeof reply.body?.error !== "string") this.malformed.push(`${what} → ${reply.status} ${JSON.stringify(reply.body)}`)
    return reply
  }

  count(status: number) {
    return this.statuses.get(status) ?? 0
  }
}

export interface LoadOptions {
  readonly tenant: Tenant
  /** The instance each worker talks to (index = worker index); may change during the test. */
  readonly workerTarget: (worker: number) => string | undefined
  /** Where the producer sends run requests (round robin). */
  readonly producerTargets: () => ReadonlyArray<string>
  readonly runs: number
  readonly runsPerSecond: number
  readonly stats: Stats
}

/**
 * Starts the producer and the workers; answers `pushedAll` (resolves once
 * every run was acknowledged) and `stop` (ends the worker loops).
 */
export const startLoad = (o: LoadOptions) => {
  let stopped = false
  const { tenant, stats } = o

  const push = async (i: number) => {
    const key = `rel-run-${i}`
    const triggerId = i % 3 === 2 ? tenant.plainTriggerId : tenant.webhookTriggerId
    for (let attempt = 0;; attempt++) {
      const targets = o.producerTargets()
      const target = targets[(i + attempt) % targets.length]!
      const reply = stats.note(
        await request(target, "POST", `/api/v1/triggers/${triggerId}/run`, {
          bearer: tenant.apiKey,
          headers: { "idempotency-key": key },
          timeoutMs: 15_000
        }),
        "run"
      )
      if (reply.status === 200 || reply.status === 201) {
        stats.pushed.set(key, reply.body.id)
        return
      }
      await sleep(200)
    }
  }

  const pushedAll = (async () => {
    const inFlight: Array<Promise<void>> = []
    const started = Date.now()
    for (let i = 0; i < o.runs; i++) {
      const due = started + (i * 1000) / o.runsPerSecond
      if (due > Date.now()) await sleep(due - Date.now())
      inFlight.push(push(i))
    }
    await Promise.all(inFlight)
  })()

  const work = async (index: number) => {
    const worker = tenant.workers[index]!
    const base = `/api/v1/workers/${worker.id}`
    while (!stopped) {
      const target = o.workerTarget(index)
      if (target === undefined) {
        // This worker's host is gone for good: it never comes back.
        return
      }
      const poll = stats.note(
        await request(target, "GET", `${base}/poll?wait=1&claim=true&max=4`, { bearer: worker.token, timeoutMs: 15_000 }),
        "poll"
      )
      if (poll.status !== 200) {
        await sleep(200)
        continue
      }
      for (const run of poll.body.runs as Array<{ id: string }>) {
        if (stats.completed.has(run.id)) stats.seenAgain.push(run.id)
        const start = stats.note(
          await request(target, "POST", `${base}/runs/${run.id}/start`, { bearer: worker.token, timeoutMs: 15_000 }),
          "start"
        )
        if (start.status !== 200) {
          if (start.status === 409) stats.conflicts++
          else stats.lostTrack++
          continue
        }
        await sleep(Math.random() * 50)
        const status = Math.random() < 0.8 ? "succeeded" : "failed"
        const complete = stats.note(
          await request(target, "POST", `${base}/runs/${run.id}/complete`, {
            bearer: worker.token,
            body: { status, stdout: "done", costUsd: "0.01" },
            timeoutMs: 15_000
          }),
          "complete"
        )
        if (complete.status === 200) {
          if (stats.completed.has(run.id)) stats.completedTwice.push(run.id)
          stats.completed.set(run.id, { worker: worker.id, status })
        } else if (complete.status === 409) {
          stats.conflicts++
        } else {
          stats.lostTrack++
        }
      }
    }
  }

  const workers = tenant.workers.map((_, i) => work(i))
  return {
    pushedAll,
    stop: async () => {
      stopped = true
      await Promise.all(workers)
    }
  }
}

export interface Figures {
  readonly runsPushed: number
  readonly runsInDatabase: number
  readonly retryRuns: number
  readonly byStatus: Record<string, number>
  readonly lost: number
  readonly duplicated: number
  readonly stuck: number
  readonly terminalTwice: number
  readonly missingRetries: number
  readonly webhookRuns: number
  readonly deliveryRecords: number
  readonly missingDeliveries: number
  readonly strayDeliveries: number
  readonly notDelivered: number
  readonly receiverMissing: number
  readonly receiverDuplicatePosts: number
  readonly receiverWrongStatus: number
  readonly outboxLeft: number
  readonly seenAgain: number
  readonly completedTwice: number
  readonly http5xx: number
  readonly http503: number
  readonly malformedErrors: number
  readonly networkFailures: number
  readonly workerLostTrack: number
  readonly conflicts409: number
}

const terminal = "('succeeded', 'failed', 'timed_out')"

/** Waits until nothing is in flight (every run terminal, outbox empty) or `timeoutMs` passes. */
export const settle = (db: TestDatabase, timeoutMs: number) =>
  waitUntil(async () => {
    const [row] = await db.query<{ active: string; outbox: string }>(
      `SELECT (SELECT count(*) FROM runs WHERE status NOT IN ${terminal})::text AS active,
              (SELECT count(*) FROM webhook_outbox)::text AS outbox`
    )
    return row!.active === "0" && row!.outbox === "0"
  }, timeoutMs, 500)

/** Reads the database and the receiver back and computes every figure. */
export const figures = async (db: TestDatabase, receiver: Receiver, stats: Stats): Promise<Figures> => {
  const one = async (sql: string) => Number((await db.query<{ n: string }>(sql))[0]!.n)
  const byStatus = Object.fromEntries(
    (await db.query<{ status: string; n: string }>(`SELECT status, count(*)::text AS n FROM runs GROUP BY status`))
      .map((r) => [r.status, Number(r.n)])
  )
  const pushedIds = [...stats.pushed.values()]
  const known = new Set(
    (await db.query<{ id: string }>(`SELECT id FROM runs WHERE idempotency_key IS NOT NULL`)).map((r) => r.id)
  )
  const webhookTerminal = await db.query<{ id: string; status: string }>(
    `SELECT id, status FROM runs WHERE webhook_url IS NOT NULL AND status IN ${terminal}`
  )
  const dbStatus = new Map(
    (await db.query<{ id: string; status: string }>(`SELECT id, status FROM runs`)).map((r) => [r.id, r.status])
  )
  let terminalTwice = 0
  for (const [runId, c] of stats.completed) {
    // A 200 on complete is the one terminal transition; anything else in the row means a second one.
    if (dbStatus.get(runId) !== c.status) terminalTwice++
  }
  let receiverMissing = 0
  let receiverDuplicatePosts = 0
  let receiverWrongStatus = 0
  for (const run of webhookTerminal) {
    const got = receiver.received.get(run.id) ?? []
    if (got.length === 0) receiverMissing++
    receiverDuplicatePosts += Math.max(0, got.length - 1)
    if (got.some((s) => s !== run.status)) receiverWrongStatus++
  }
  let networkFailures = stats.count(0)
  let http5xx = 0
  for (const [status, n] of stats.statuses) if (status >= 500) http5xx += n
  return {
    runsPushed: stats.pushed.size,
    runsInDatabase: dbStatus.size,
    retryRuns: await one(`SELECT count(*)::text AS n FROM runs WHERE retry_of_run_id IS NOT NULL`),
    byStatus,
    lost: pushedIds.filter((id) => !known.has(id)).length,
    duplicated: await one(
      `SELECT count(*)::text AS n FROM (SELECT idempotency_key FROM runs WHERE idempotency_key IS NOT NULL
         GROUP BY trigger_id, idempotency_key HAVING count(*) > 1) d`
    ) + await one(
      `SELECT count(*)::text AS n FROM (SELECT retry_of_run_id FROM runs WHERE retry_of_run_id IS NOT NULL
         GROUP BY retry_of_run_id HAVING count(*) > 1) d`
    ),
    stuck: await one(`SELECT count(*)::text AS n FROM runs WHERE status NOT IN ${terminal}`),
    terminalTwice,
    missingRetries: await one(
      `SELECT count(*)::text AS n FROM runs r WHERE r.status IN ('failed', 'timed_out') AND r.attempt <= r.max_retries
         AND NOT EXISTS (SELECT 1 FROM runs c WHERE c.retry_of_run_id = r.id)`
    ),
    webhookRuns: webhookTerminal.length,
    deliveryRecords: await one(`SELECT count(*)::text AS n FROM webhook_deliveries`),
    missingDeliveries: await one(
      `SELECT count(*)::text AS n FROM runs r WHERE r.webhook_url IS NOT NULL AND r.status IN ${terminal}
         AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.run_id = r.id)`
    ),
    strayDeliveries: await one(
      `SELECT count(*)::text AS n FROM webhook_deliveries d JOIN runs r ON r.id = d.run_id
         WHERE r.webhook_url IS NULL OR r.status NOT IN ${terminal}`
    ),
    notDelivered: await one(`SELECT count(*)::text AS n FROM webhook_deliveries WHERE outcome <> 'delivered'`),
    receiverMissing,
    receiverDuplicatePosts,
    receiverWrongStatus,
    outboxLeft: await one(`SELECT count(*)::text AS n FROM webhook_outbox`),
    seenAgain: stats.seenAgain.length,
    completedTwice: stats.completedTwice.length,
    http5xx,
    http503: stats.count(503),
    malformedErrors: stats.malformed.length,
    networkFailures,
    workerLostTrack: stats.lostTrack,
    conflicts409: stats.conflicts
  }
}

const leases = async (db: TestDatabase) =>
  new Set(
    (await db.query<{ owner: string; run_id: string }>(`SELECT lease_owner AS owner, run_id FROM webhook_outbox WHERE lease_owner IS NOT NULL`))
      .map((r) => `${r.owner} ${r.run_id}`)
  )

/**
 * Leases held by instances that no longer exist (a kill -9 leaves them until
 * they expire): the leases that did not move for `quietMs`. A living instance
 * delivering to an always-200 receiver finishes a lease in milliseconds.
 */
export const orphanLeases = async (db: TestDatabase, quietMs = 0) => {
  const before = await leases(db)
  if (quietMs > 0) await sleep(quietMs)
  const after = quietMs > 0 ? await leases(db) : before
  return [...new Set([...before].filter((l) => after.has(l)).map((l) => l.split(" ")[0]!))]
}

/**
 * Ends the given (dead) owners' leases now instead of after the 2-minute lease
 * duration, so the test does not sit out that clock. Takeover of an expired
 * lease itself is covered by test/webhooks/durability.test.ts.
 */
export const expireLeases = async (db: TestDatabase, owners: ReadonlyArray<string>) => {
  if (owners.length === 0) return 0
  const list = owners.map((o) => `'${o.replace(/'/g, "")}'`).join(",")
  const rows = await db.query(`UPDATE webhook_outbox SET lease_until = now() WHERE lease_owner IN (${list}) RETURNING run_id`)
  return rows.length
}

/**
 * The settled figures every fault scenario must end with (runsPushed and the
 * 5xx count differ per scenario): nothing lost, duplicated, stuck or delivered
 * twice, one delivery record per terminal webhook run, every error a `{error}`.
 */
export const nothingLostOrDuplicated = {
  lost: 0,
  duplicated: 0,
  stuck: 0,
  terminalTwice: 0,
  missingRetries: 0,
  missingDeliveries: 0,
  strayDeliveries: 0,
  notDelivered: 0,
  receiverMissing: 0,
  receiverWrongStatus: 0,
  outboxLeft: 0,
  seenAgain: 0,
  completedTwice: 0,
  malformedErrors: 0
} as const
