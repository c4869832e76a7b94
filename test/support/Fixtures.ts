import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { uuidv7 } from "../../src/Crypto/Ids.js"
import { generate, sha256, tokenStart } from "../../src/Crypto/Tokens.js"
import type { Role } from "../../src/Domain/Schemas.js"
import { call, registerUser } from "./TestApp.js"

/**
 * Shared test fixtures: a user owning a workspace with one environment, members
 * with a role, API keys, registration tokens, triggers and registered workers.
 *
 * Workspace, environment, member and key rows are written with SQL (the same
 * rows the tenancy endpoints write), so these fixtures do not depend on the
 * tenancy feature; triggers and workers go through their HTTP endpoints.
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

/** A fresh user owning a fresh workspace with one environment. */
export const setupEnvironment = (name = "env") =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const user = yield* registerUser("owner")
    const workspaceId = uuidv7()
    const environmentId = uuidv7()
    yield* sql`INSERT INTO workspaces (id, name, owner_id) VALUES (${workspaceId}, ${`ws-${name}`}, ${user.id})`
    yield* sql`INSERT INTO environments (id, workspace_id, name) VALUES (${environmentId}, ${workspaceId}, ${name})`
    yield* sql`INSERT INTO members (environment_id, user_id, role) VALUES (${environmentId}, ${user.id}, 'owner')`
    return { user, workspaceId, environmentId } satisfies TestEnv
  }).pipe(Effect.orDie)

/** A second environment in the same workspace, owned by the same user. */
export const addEnvironment = (env: TestEnv, name = "env-2") =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const environmentId = uuidv7()
    yield* sql`INSERT INTO environments (id, workspace_id, name) VALUES (${environmentId}, ${env.workspaceId}, ${name})`
    yield* sql`INSERT INTO members (environment_id, user_id, role) VALUES (${environmentId}, ${env.user.id}, 'owner')`
    return { ...env, environmentId } satisfies TestEnv
  }).pipe(Effect.orDie)

/** A fresh user who is a member of the environment with `role`. */
export const addMember = (env: TestEnv, role: Role) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const user = yield* registerUser(role)
    yield* sql`INSERT INTO members (environment_id, user_id, role) VALUES (${env.environmentId}, ${user.id}, ${role})`
    return user satisfies TestUser
  }).pipe(Effect.orDie)

const insertKey = (env: TestEnv, prefix: "pwk" | "wrk", role: Exclude<Role, "owner"> | null) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const token = generate(prefix)
    const id = uuidv7()
    yield* sql`
      INSERT INTO api_keys (id, environment_id, name, prefix, role, token_hash, token_start, created_by)
      VALUES (${id}, ${env.environmentId}, ${`${prefix}-key`}, ${prefix}, ${role}, ${sha256(token)}, ${tokenStart(token)}, ${env.user.id})`
    return { id, token }
  }).pipe(Effect.orDie)

/** A `pwk_` API key of the environment acting with `role`; answers the bearer token. */
export const mintApiKey = (env: TestEnv, role: Exclude<Role, "owner"> = "operator") =>
  Effect.map(insertKey(env, "pwk", role), (k) => k.token)

/** A single-use `wrk_` registration token of the environment. */
export const mintRegistrationToken = (env: TestEnv) => Effect.map(insertKey(env, "wrk", null), (k) => k.token)

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

export type RunStatus = "queued" | "assigned" | "claimed" | "running" | "succeeded" | "failed" | "timed_out"

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
    const terminal = status === "succeeded" || status === "failed" || status === "timed_out"
    const createdAt = fields.createdAt ?? new Date()
    const endedAt = fields.endedAt !== undefined ? fields.endedAt : terminal ? new Date() : null
    yield* sql`
      INSERT INTO runs (id, trigger_id, environment_id, status, worker_id, cost_usd, timeout_seconds,
                        heartbeat_timeout_seconds, max_retries, created_at, ended_at)
      VALUES (${id}, ${triggerId}, ${environmentId}, ${status}, ${fields.workerId ?? null}, ${fields.costUsd ?? null},
              3600, 30, 0, ${createdAt}, ${endedAt})`
    return id
  }).pipe(Effect.orDie)
