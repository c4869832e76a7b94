import { cpuMeter, type CpuPerRun } from "../lib/cpu.js"
import { expectStatus, type Client } from "../lib/http.js"
import type { startReceiver } from "../lib/receiver.js"
import { createTrigger, registerWorkers, setupTenant, type Worker } from "../lib/setup.js"

type Receiver = Awaited<ReturnType<typeof startReceiver>>

export interface StepFigures {
  readonly perSec: number
  readonly cpuMsPerRun: CpuPerRun
}

/**
 * What each step of the protocol costs, one step at a time over `runs` runs:
 * request them all, claim them all (batched poll), start, heartbeat and
 * complete each (the webhook included: complete is measured until the
 * receiver has every delivery). The lifecycle scenarios interleave the
 * steps; this one says where a run's CPU goes. It has a tenant and workers
 * of its own.
 */
export const steps = async (o: {
  readonly client: Client
  readonly serviceUrl: string
  readonly receiver: Receiver
  readonly servicePid: number
  readonly runs: number
}): Promise<Record<string, StepFigures>> => {
  const tenant = await setupTenant(o.client, o.serviceUrl)
  const workers = await registerWorkers(o.client, tenant, 8)
  const triggerId = await createTrigger(o.client, tenant, {
    webhookUrl: o.receiver.url,
    webhookSecret: "bench-secret-0123456789abcdef"
  })
  const figures: Record<string, StepFigures> = {}
  const measure = async (name: string, f: () => Promise<void>) => {
    const cpu = cpuMeter(o.servicePid)
    const start = Date.now()
    await f()
    figures[name] = { perSec: Math.round(o.runs / ((Date.now() - start) / 1000)), cpuMsPerRun: cpu(o.runs) }
  }
  // `concurrency` callers take items off one counter, as producers and workers would.
  const inParallel = async (concurrency: number, f: (i: number) => Promise<void>) => {
    let next = 0
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (next < o.runs) await f(next++)
    }))
  }
  const workerCall = (worker: Worker, runId: string, step: string, body?: unknown) =>
    o.client.request("POST", `/api/v1/workers/${worker.id}/runs/${runId}/${step}`, {
      headers: { authorization: `Bearer ${worker.token}` },
      ...(body === undefined ? {} : { body })
    }).then((reply) => expectStatus(reply, 200, step))

  // BENCH_STEPS=request stops after the first step (to profile run requests alone).
  const requestOnly = process.env.BENCH_STEPS === "request"
  await measure("request", () =>
    inParallel(16, async () => {
      expectStatus(
        await o.client.request("POST", `/api/v1/triggers/${triggerId}/run`, { headers: { authorization: `Bearer ${tenant.apiKey}` } }),
        201,
        "run"
      )
    }))
  if (requestOnly) return figures
  const claimed: Array<{ readonly worker: Worker; readonly runId: string }> = []
  await measure("claim (batched poll)", async () => {
    await Promise.all(workers.map(async (worker) => {
      while (claimed.length < o.runs) {
        const reply = expectStatus(
          await o.client.request("GET", `/api/v1/workers/${worker.id}/poll?wait=1&claim=true&max=50`, {
            headers: { authorization: `Bearer ${worker.token}` }
          }),
          200,
          "poll"
        )
        for (const run of reply.body.runs) claimed.push({ worker, runId: run.id })
      }
    }))
  })
  await measure("start", () => inParallel(16, (i) => workerCall(claimed[i]!.worker, claimed[i]!.runId, "start").then(() => {})))
  await measure("heartbeat", () => inParallel(16, (i) => workerCall(claimed[i]!.worker, claimed[i]!.runId, "heartbeat").then(() => {})))
  const target = o.receiver.arrivals.size + o.runs
  await measure("complete + webhook", async () => {
    await inParallel(16, (i) =>
      workerCall(claimed[i]!.worker, claimed[i]!.runId, "complete", { status: "succeeded", stdout: "ok", costUsd: "0.001" }).then(() => {}))
    await o.receiver.waitFor(target, 60_000)
  })
  return figures
}
