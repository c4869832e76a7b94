import { type Client, expectStatus } from "./http.js"

/** A user, workspace, environment, operator `pwk_` key and a set of registered workers. */
export interface Tenant {
  readonly environmentId: string
  readonly cookie: string
  readonly apiKey: string
  readonly origin: string
}

export const setupTenant = async (client: Client, baseUrl: string): Promise<Tenant> => {
  const origin = new URL(baseUrl).origin.replace("127.0.0.1", "localhost")
  const email = `bench-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`
  const reg = await new Promise<{ cookie: string }>((resolve, reject) => {
    fetch(`${baseUrl}/api/v1/auth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password: "benchmark password" })
    }).then((res) => {
      if (res.status !== 201) return reject(new Error(`register: ${res.status}`))
      resolve({ cookie: (res.headers.get("set-cookie") ?? "").split(";")[0]! })
    }, reject)
  })
  const headers = { cookie: reg.cookie, origin }
  const ws = expectStatus(await client.request("POST", "/api/v1/workspaces", { body: { name: "bench" }, headers }), 201, "workspace")
  const env = expectStatus(
    await client.request("POST", `/api/v1/workspaces/${ws.body.id}/environments`, { body: { name: "bench" }, headers }),
    201,
    "environment"
  )
  const key = expectStatus(
    await client.request("POST", `/api/v1/environments/${env.body.id}/api-keys`, {
      body: { name: "bench", prefix: "pwk", role: "admin" },
      headers
    }),
    201,
    "api key"
  )
  return { environmentId: env.body.id, cookie: reg.cookie, apiKey: key.body.token, origin }
}

export interface Worker {
  readonly id: string
  readonly token: string
}

export const registerWorkers = async (client: Client, tenant: Tenant, n: number): Promise<Array<Worker>> => {
  const workers: Array<Worker> = []
  for (let i = 0; i < n; i++) {
    const wrk = expectStatus(
      await client.request("POST", `/api/v1/environments/${tenant.environmentId}/api-keys`, {
        body: { name: `worker-${i}`, prefix: "wrk" },
        headers: { authorization: `Bearer ${tenant.apiKey}` }
      }),
      201,
      "wrk token"
    )
    const reg = expectStatus(
      await client.request("POST", "/api/v1/workers/register", { body: { registrationToken: wrk.body.token, label: `bench-${i}` } }),
      201,
      "register worker"
    )
    workers.push({ id: reg.body.worker.id, token: reg.body.token })
  }
  return workers
}

export const createTrigger = async (client: Client, tenant: Tenant, fields: Record<string, unknown>): Promise<string> =>
  expectStatus(
    await client.request("POST", `/api/v1/environments/${tenant.environmentId}/triggers`, {
      body: { name: "bench", ...fields },
      headers: { authorization: `Bearer ${tenant.apiKey}` }
    }),
    201,
    "trigger"
  ).body.id

/**
 * Requests `runs` runs of the trigger as fast as `producers` keep-alive
 * callers go (the lifecycle scenarios' load): each run created, with when its
 * request was answered, and how many requests were refused.
 */
export const requestRuns = async (client: Client, tenant: Tenant, triggerId: string, runs: number, producers = 16) => {
  const requestedAt = new Map<string, number>()
  let requested = 0
  let refused = 0
  const produce = async () => {
    while (requested < runs) {
      requested++
      const res = await client.request("POST", `/api/v1/triggers/${triggerId}/run`, { headers: { authorization: `Bearer ${tenant.apiKey}` } })
      if (res.status === 201) requestedAt.set(res.body.id, Date.now())
      else refused++
    }
  }
  await Promise.all(Array.from({ length: producers }, produce))
  return { requestedAt, refused }
}
