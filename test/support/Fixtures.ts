import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { uuidv7 } from "../../src/Crypto/Ids.js"
import type { Role } from "../../src/Contract/Domain/Schemas.js"
import { call, registerUser } from "./TestApp.js"

/**
 * Shared test fixtures, all through the public HTTP API (workspaces,
 * environments, members, API keys, workers, triggers), so they exercise the
 * same paths clients use. Only `insertRun` writes SQL, for features that read
 * runs without driving the scheduler.
 */
export interface TestUser {
  readonly id: string
  readonly email: string
  readonly cookie: string
}

export interface TestEnv {
  /** The workspace owner, an `owner` member of the environment. */
  readonly user: TestUser
  readonly workspaceId: string
  readonly environmentId: string
}

const die = (what: string, res: { status: number; body: unknown }) =>
  Effect.dieMessage(`${what} failed: ${res.status} ${JSON.stringify(res.body)}`)

const expectStatus = (what: string, status: number, res: { status: number; body: any }) =>
  res.status === status ? Effect.succeed(res.body) : die(what, res)

/** A fresh user owning a fresh workspace with one environment. */
export const setupEnvironment = (name = "env") =>
  Effect.gen(function*() {
    const user = yield* registerUser("owner")
    const ws = yield* expectStatus("create workspace", 201, yield* call("POST", "/api/v1/workspaces", {
      cookie: user.cookie,
      body: { name: `ws-${name}` }
    }))
    const env = yield* expectStatus("create environment", 201, yield* call("POST", `/api/v1/workspaces/${ws.id}/environments`, {
      cookie: user.cookie,
      body: { name }
    }))
    return { user, workspaceId: ws.id as string, environmentId: env.id as string } satisfies TestEnv
  })

/** A second environment in the same workspace, owned by the same user. */
export const addEnvironment = (env: TestEnv, name = "env-2") =>
  Effect.gen(function*() {
    const created = yield* expectStatus("create environment", 201, yield* call("POST", `/api/v1/workspaces/${env.workspaceId}/environments`, {
      cookie: env.user.cookie,
      body: { name }
    }))
    return { ...env, environmentId: created.id as string } satisfies TestEnv
  })

/** A fresh user who is a member of the environment with `role`. */
export const addMember = (env: TestEnv, role: Role) =>
  Effect.gen(function*() {
    const user = yield* registerUser(role)
    yield* expectStatus("add member", 201, yield* call("POST", `/api/v1/environments/${env.environmentId}/members`, {
      cookie: env.user.cookie,
      body: { userId: user.id, role }
    }))
    return user satisfies TestUser
  })

const createKey = (env: TestEnv, body: Record<string, unknown>) =>
  Effect.gen(function*() {
    const res = yield* call("POST", `/api/v1/environments/${env.environmentId}/api-keys`, { cookie: env.user.cookie, body })
    const created = yield* expectStatus("create API key", 201, res)
    return created.token as string
  })

/** A `pwk_` API key of the environment acting with `role`; answers the bearer token. */
export const mintApiKey = (env: TestEnv, role: Exclude<Role, "owner"> = "operator") =>
  createKey(env, { name: `${role} key`, prefix: "pwk", role })

/** A single-use `wrk_` registration token of the environment. */
export const mintRegistrationToken = (env: TestEnv) => createKey(env, { name: "worker registration", prefix: "wrk" })

/** Registers a worker through `POST /workers/register`; answers its id, `wkt_` token and worker object. */
export const registerWorker = (env: TestEnv, label?: string) =>
  Effect.gen(function*() {
    const registrationToken = yield* mintRegistrationToken(env)
    const res = yield* call("POST", "/api/v1/workers/register", {
      body: label === undefined ? { registrationToken } : { registrationToken, label }
    })
    if (res.status !== 201) return yield* die("register worker", res)
    return { workerId: res.body.worker.id as string, token: res.body.token as string, worker: res.body.worker }
  })

/** Creates a trigger through the API as the environment owner; answers the trigger object. */
export const createTrigger = (env: TestEnv, fields: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const res = yield* call("POST", `/api/v1/environments/${env.environmentId}/triggers`, {
      cookie: env.user.cookie,
      body: { name: "nightly build", ...fields }
    })
    if (res.status !== 201) return yield* die("create trigger", res)
    return res.body as { id: string; environmentId: string; [key: string]: unknown }
  })

export type RunStatus = "queued" | "assigned" | "claimed" | "running" | "succeeded" | "failed" | "timed_out" | "cancelled" | "expired"

/**
 * Inserts a run row directly (for tests of features that only read runs: the
 * dashboard, trigger deletion). Timestamps default to now.
 */
export const insertRun = (
  triggerId: string,
  environmentId: string,
  fields: {
    readonly status?: RunStatus
    readonly costUsd?: string | null
    readonly createdAt?: Date
    readonly endedAt?: Date | null
    readonly workerId?: string | null
  } = {}
) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const id = uuidv7()
    const status = fields.status ?? "queued"
    const terminal = status === "succeeded" || status === "failed" || status === "timed_out" || status === "cancelled" ||
      status === "expired"
    const createdAt = fields.createdAt ?? new Date()
    const endedAt = fields.endedAt !== undefined ? fields.endedAt : terminal ? new Date() : null
    yield* sql`
      INSERT INTO runs (id, trigger_id, environment_id, status, worker_id, cost_usd, timeout_seconds,
                        heartbeat_timeout_seconds, max_retries, created_at, ended_at)
      VALUES (${id}, ${triggerId}, ${environmentId}, ${status}, ${fields.workerId ?? null}, ${fields.costUsd ?? null},
              3600, 30, 0, ${createdAt}, ${endedAt})`
    return id
  }).pipe(Effect.orDie)
