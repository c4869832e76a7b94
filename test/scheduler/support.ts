import { type Created, RunStore } from "../../src/RunStore/RunStore.js"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"
import { uuidv7 } from "../../src/Crypto/Ids.js"
import { sha256 } from "../../src/Crypto/Tokens.js"
import { Supervisor } from "../../src/Scheduler/Supervision.js"
import * as SqlRunStore from "../../src/RunStore/SqlRunStore.js"
import * as Scheduler from "../../src/Scheduler/Scheduler.js"
import { TerminalHandoff } from "../../src/Scheduler/TerminalHandoff.js"
import { WorkerProtocol } from "../../src/WorkerProtocol/WorkerProtocol.js"
import * as Tuning from "../../src/Config/Tuning.js"
import * as TestDatabase from "../support/TestDatabase.js"

/**
 * The scheduler core and the worker protocol over it, without HTTP, on a fresh database, for `TestClock` tests
 * (the port to webhook delivery left for the test to provide):
 * every timestamp and deadline the scheduler writes comes from the Effect
 * `Clock`, so adjusting the `TestClock` drives the supervision fibers.
 */
/** The run store the scheduler goes through: `SqlRunStore.layer`, or a test's wrapper of it. */
export type Store = Layer.Layer<RunStore, never, SqlClient.SqlClient | Tuning.Tuning>

export const schedulerBesideDelivery = (
  options: Partial<Tuning.TuningShape> = {},
  store: Store = SqlRunStore.layer
) =>
  WorkerProtocol.Default.pipe(
    Layer.provideMerge(Scheduler.layer),
    Layer.provideMerge(store),
    Layer.provide(Tuning.layer({ claimTimeoutSeconds: 3, ...options }))
  )

/** `schedulerBesideDelivery` on an instance without a delivery loop: every webhook row is announced, none handed. */
export const schedulerOnly = (options: Partial<Tuning.TuningShape> = {}, store?: Store) =>
  schedulerBesideDelivery(options, store).pipe(Layer.provide(TerminalHandoff.none))

export const databaseLayer = Layer.orDie(TestDatabase.layer)

/**
 * Runs `body` with the scheduler started at `t0` = real now on the TestClock,
 * so timestamps look real and workers the database saw "now" are online. The
 * clock is set BEFORE the scheduler starts: moving it 50 years forward under a
 * running sweep would replay every one-second sweep in between.
 */
export const scheduled = <A, E, R>(
  options: Partial<Tuning.TuningShape>,
  body: (t0: number) => Effect.Effect<A, E, R>,
  store?: Store
) =>
  Effect.gen(function*() {
    const t0 = Date.now()
    yield* TestClock.setTime(t0)
    return yield* body(t0).pipe(Effect.provide(schedulerOnly(options, store)))
  }).pipe(Effect.provide(databaseLayer))


export interface Seed {
  readonly environmentId: string
  readonly workerId: string
  readonly token: string
  readonly userId: string
}

export interface TriggerOptions {
  readonly timeoutSeconds?: number
  readonly heartbeatTimeoutSeconds?: number
  readonly maxRetries?: number
  readonly webhookUrl?: string | null
  readonly workerId?: string | null
}

/** A user owning a workspace with one environment, inserted directly (no HTTP). */
export const seedTenant = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const userId = uuidv7()
  const workspaceId = uuidv7()
  const environmentId = uuidv7()
  yield* sql`INSERT INTO users (id, email, password_hash) VALUES (${userId}, ${`${userId}@example.com`}, 'x')`
  yield* sql`INSERT INTO workspaces (id, name, owner_id) VALUES (${workspaceId}, 'ws', ${userId})`
  yield* sql`INSERT INTO environments (id, workspace_id, name) VALUES (${environmentId}, ${workspaceId}, 'env')`
  yield* sql`INSERT INTO members (environment_id, user_id, role) VALUES (${environmentId}, ${userId}, 'owner')`
  return { environmentId, userId, workspaceId }
}).pipe(Effect.orDie)

/** A user, workspace, environment and one worker last seen at `lastSeen`. */
export const seed = (lastSeen: Date) =>
  Effect.gen(function*() {
    const { environmentId, userId, workspaceId } = yield* seedTenant
    const worker = yield* addWorker({ environmentId, workspaceId }, lastSeen)
    return { environmentId, userId, ...worker } satisfies Seed
  }).pipe(Effect.orDie)

export const addWorker = (where: { readonly environmentId: string; readonly workspaceId?: string }, lastSeen: Date) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const workerId = uuidv7()
    const token = `wkt_${workerId}`
    yield* sql`
      INSERT INTO workers (id, environment_id, workspace_id, label, token_hash, last_seen_at)
      SELECT ${workerId}, id, workspace_id, 'w', ${sha256(token)}, ${lastSeen.toISOString()}::timestamptz
      FROM environments WHERE id = ${where.environmentId}`
    return { workerId, token }
  }).pipe(Effect.orDie)

export const addTrigger = (environmentId: string, options: TriggerOptions = {}) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const id = uuidv7()
    yield* sql`
      INSERT INTO triggers (id, environment_id, name, worker_id, input, timeout_seconds, heartbeat_timeout_seconds,
                            max_retries, webhook_url, webhook_secret_enc)
      VALUES (${id}, ${environmentId}, 'job', ${options.workerId ?? null}, ${JSON.stringify({ job: 1 })}::jsonb,
              ${options.timeoutSeconds ?? 3600}, ${options.heartbeatTimeoutSeconds ?? 5}, ${options.maxRetries ?? 0},
              ${options.webhookUrl ?? null}, ${options.webhookUrl ? "k1:sealed" : null})`
    return id
  }).pipe(Effect.orDie)

/** A queued run through the real creation path (snapshot, audit). */
export const requestRun = (triggerId: string, userId: string) =>
  Effect.gen(function*() {
    const supervisor = yield* Supervisor
    // As a run request does: placed by its creating statement where the rules allow, else an assignment pass.
    const [created] = yield* supervisor.createRuns(triggerId, [
      { input: undefined, idempotencyKey: undefined, actor: { _tag: "User", userId, sessionHash: "test" } }
    ])
    return (created as Created).run.id
  })

export interface RunState {
  readonly status: string
  readonly worker_id: string | null
  readonly fault_class: string | null
  readonly attempt: number
  readonly retry_of_run_id: string | null
  readonly assigned_at: Date | null
  readonly deadline_at: Date | null
  readonly duration_ms: string | number | null
}

export const runState = (runId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<RunState>`
      SELECT status, worker_id, fault_class, attempt, retry_of_run_id, assigned_at, deadline_at, duration_ms
      FROM runs WHERE id = ${runId}`
    return rows[0]!
  }).pipe(Effect.orDie)

// Real time, not the TestClock: the woken fibers wait on the database.
const realPause = Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, 20)))

/**
 * Polls `check` (in real time) until it holds: after a `TestClock.adjust` the
 * woken fibers still have database work to finish. Fails after 30 s of real
 * time (about 50 ms on a quiet machine; generous so a machine at load 16 passes).
 */
export const eventually = <A>(read: Effect.Effect<A, never, SqlClient.SqlClient>, check: (a: A) => boolean) =>
  Effect.gen(function*() {
    let last: A | undefined
    const deadline = Date.now() + 30_000
    for (;;) {
      last = yield* read
      if (check(last)) return last
      if (Date.now() > deadline) break
      yield* realPause
    }
    return yield* Effect.dieMessage(`condition not reached within 30 s; last value: ${JSON.stringify(last)}`)
  })

/** Lets the woken fibers finish their database work, for checks that something did NOT happen. */
export const settle = Effect.repeatN(realPause, 10)
