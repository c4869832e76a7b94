import * as Effect from "effect/Effect"
import type { Role } from "../../src/Contract/Domain/Schemas.js"
import { call, registerUser } from "../support/TestApp.js"

/** Tenancy fixtures built through the public endpoints, so they exercise them too. */
export interface User {
  readonly id: string
  readonly email: string
  readonly cookie: string
}

export interface Env {
  readonly owner: User
  readonly workspaceId: string
  readonly environmentId: string
}

const expectStatus = (what: string, status: number, res: { status: number; body: unknown }) =>
  res.status === status ? Effect.void : Effect.dieMessage(`${what}: expected ${status}, got ${res.status} ${JSON.stringify(res.body)}`)

export const createWorkspace = (owner: User, name = "workspace") =>
  Effect.gen(function*() {
    const res = yield* call("POST", "/api/v1/workspaces", { cookie: owner.cookie, body: { name } })
    yield* expectStatus("create workspace", 201, res)
    return res.body.id as string
  })

export const createEnvironment = (owner: User, workspaceId: string, name = "production") =>
  Effect.gen(function*() {
    const res = yield* call("POST", `/api/v1/workspaces/${workspaceId}/environments`, { cookie: owner.cookie, body: { name } })
    yield* expectStatus("create environment", 201, res)
    return res.body.id as string
  })

/** A fresh user owning a fresh workspace with one environment. */
export const newEnv = Effect.gen(function*() {
  const owner = yield* registerUser("owner")
  const workspaceId = yield* createWorkspace(owner)
  const environmentId = yield* createEnvironment(owner, workspaceId)
  return { owner, workspaceId, environmentId } satisfies Env
})

/** A fresh user added to the environment with `role` by its owner. */
export const addMember = (env: Env, role: Role) =>
  Effect.gen(function*() {
    const user = yield* registerUser(role)
    const res = yield* call("POST", `/api/v1/environments/${env.environmentId}/members`, {
      cookie: env.owner.cookie,
      body: { userId: user.id, role }
    })
    yield* expectStatus("add member", 201, res)
    return user
  })

/** Mints a `pwk` key with `role` as the environment owner; answers the create response body. */
export const mintKey = (env: Env, role: "viewer" | "operator" | "admin", name = `key-${role}`) =>
  Effect.gen(function*() {
    const res = yield* call("POST", `/api/v1/environments/${env.environmentId}/api-keys`, {
      cookie: env.owner.cookie,
      body: { name, prefix: "pwk", role }
    })
    yield* expectStatus("mint key", 201, res)
    return res.body as { id: string; token: string; role: string }
  })

/** Follows `nextCursor` until null and answers every item seen. */
export const collectPages = (path: string, auth: { cookie?: string; bearer?: string }, limit: number) =>
  Effect.gen(function*() {
    const items: Array<any> = []
    let cursor: string | null = null
    const sep = path.includes("?") ? "&" : "?"
    for (let i = 0; i < 1000; i++) {
      const url: string = `${path}${sep}limit=${limit}${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`
      const res = yield* call("GET", url, auth)
      yield* expectStatus(`page ${url}`, 200, res)
      if (res.body.items.length > limit) return yield* Effect.dieMessage("page larger than limit")
      items.push(...res.body.items)
      cursor = res.body.nextCursor
      if (cursor === null) return items
    }
    return yield* Effect.dieMessage("pagination did not terminate")
  })
