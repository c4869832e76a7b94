import { expect } from "@effect/vitest"
import { request, type Reply, sleep, startService, waitUntil } from "../support/Process.js"
import { setupTenant } from "./load.js"

/**
 * A service outage longer than the heartbeat timeout, with two running runs:
 * one whose worker keeps heartbeating through the outage (a live worker: its
 * calls fail while the service is away), one whose worker died. The service
 * is stopped (`how`), stays away `heartbeatSeconds + 4` s and is started
 * again on the same database and port. The live run must survive and
 * complete; the dead one must still time out, one heartbeat window after
 * the service is back (not at once, and not never).
 */
export const outageScenario = async (options: {
  readonly env: Record<string, string>
  readonly how: "SIGTERM" | "SIGKILL"
  readonly cleanup: (f: () => Promise<unknown>) => void
}) => {
  const heartbeatSeconds = 10
  let service = await startService(options.env)
  options.cleanup(() => service.stop())
  const tenant = await setupTenant(service.url, "http://127.0.0.1:9/", 1)
  const worker = tenant.workers[0]!
  const trigger = await request(service.url, "POST", `/api/v1/environments/${tenant.environmentId}/triggers`, {
    body: { name: "outage", timeoutSeconds: 600, heartbeatTimeoutSeconds: heartbeatSeconds, maxRetries: 0 },
    bearer: tenant.apiKey
  })
  expect(trigger.status).toBe(201)
  const runIds: Array<string> = []
  for (let i = 0; i < 2; i++) {
    const run = await request(service.url, "POST", `/api/v1/triggers/${trigger.body.id}/run`, { bearer: tenant.apiKey })
    expect(run.status).toBe(201)
    runIds.push(run.body.id)
  }
  const held = new Set<string>()
  expect(
    await waitUntil(async () => {
      const poll = await request(service.url, "GET", `/api/v1/workers/${worker.id}/poll?claim=true&start=true&max=2`, { bearer: worker.token })
      for (const run of poll.body?.runs ?? []) held.add(run.id)
      return held.size === 2
    }, 15_000)
  ).toBe(true)
  const [live, dead] = runIds as [string, string]

  // The live worker: a heartbeat every second, whatever the answer, as a
  // worker that cannot reach its service keeps trying.
  const beats: Array<{ readonly at: number; readonly reply: Reply }> = []
  let beating = true
  const beater = (async () => {
    while (beating) {
      const reply = await request(service.url, "POST", `/api/v1/workers/${worker.id}/runs/${live}/heartbeat`, {
        bearer: worker.token,
        timeoutMs: 2000
      })
      beats.push({ at: Date.now(), reply })
      await sleep(1000)
    }
  })()
  await sleep(2000)

  service.kill(options.how)
  const stoppedAt = (await service.exited).at
  await sleep((heartbeatSeconds + 4) * 1000)
  const restartedAt = Date.now()
  service = await startService(options.env, { port: service.port })
  const readyAt = Date.now()

  // The live worker's next heartbeat after the restart keeps its run.
  expect(await waitUntil(() => beats.some((b) => b.at > readyAt && b.reply.status === 200), 10_000, 100)).toBe(true)
  beating = false
  await beater
  const refused = beats.filter((b) => b.reply.status !== 200 && b.reply.status !== 0 && b.reply.status !== 503)
  expect(refused.map((b) => `${b.reply.status} ${JSON.stringify(b.reply.body)}`)).toEqual([])
  expect(beats.filter((b) => b.at > stoppedAt && b.at < restartedAt).every((b) => b.reply.status === 0)).toBe(true)
  const completed = await request(service.url, "POST", `/api/v1/workers/${worker.id}/runs/${live}/complete`, {
    bearer: worker.token,
    body: { status: "succeeded" }
  })
  expect(completed.status, JSON.stringify(completed.body)).toBe(200)
  const liveRun = await request(service.url, "GET", `/api/v1/runs/${live}`, { bearer: tenant.apiKey })
  expect(liveRun.body.status).toBe("succeeded")

  // The dead worker's run: timed out one window after the service came back.
  let deadRun: Reply | undefined
  expect(
    await waitUntil(async () => {
      deadRun = await request(service.url, "GET", `/api/v1/runs/${dead}`, { bearer: tenant.apiKey })
      return deadRun.body?.status === "timed_out"
    }, (heartbeatSeconds + 10) * 1000, 200)
  ).toBe(true)
  expect(deadRun!.body.faultClass).toBe("infra")
  const endedAt = Date.parse(deadRun!.body.endedAt)
  expect(endedAt).toBeGreaterThanOrEqual(restartedAt + heartbeatSeconds * 1000 - 500)
  expect(endedAt).toBeLessThanOrEqual(readyAt + heartbeatSeconds * 1000 + 3000)
  return { service, restartedAt, readyAt, endedAt, outageMs: restartedAt - stoppedAt }
}
