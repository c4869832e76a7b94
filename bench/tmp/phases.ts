// Service CPU per request, by endpoint: W workers × 100 runs each, warm rounds, then measured rounds.
import * as fs from "node:fs"
import { createDatabase } from "../lib/database.js"
import { makeClient } from "../lib/http.js"
import { startReceiver } from "../lib/receiver.js"
import { startService } from "../lib/server.js"
import { createTrigger, registerWorkers, setupTenant } from "../lib/setup.js"

const cpuOf = (pid: number) => { const s = fs.readFileSync(`/proc/${pid}/stat`, "utf8"); const f = s.slice(s.lastIndexOf(")") + 2).split(" "); return (Number(f[11]) + Number(f[12])) / 100 }
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const main = async () => {
  const W = Number(process.env.W ?? 8), PER = 100, ROUNDS = Number(process.env.ROUNDS ?? 4)
  const db = await createDatabase(process.env.DATABASE_URL ?? "postgres://postgres@localhost/postgres?host=/var/run/postgresql", "pts_micro")
  const service = await startService({ DATABASE_URL: db })
  const client = makeClient(service.url)
  const receiver = await startReceiver()
  const tenant = await setupTenant(client, service.url)
  const workers = await registerWorkers(client, tenant, W)
  const hook = process.env.NOHOOK ? {} : { webhookUrl: receiver.url, webhookSecret: "bench-secret-0123456789abcdef" }
  const trigger = await createTrigger(client, tenant, hook)
  const auth = { authorization: `Bearer ${tenant.apiKey}` }
  const totals: Record<string, number[]> = {}
  const phase = async (name: string, ops: Array<() => Promise<unknown>>, record: boolean) => {
    await sleep(300)
    const c0 = cpuOf(service.pid)
    let i = 0
    await Promise.all(Array.from({ length: 8 }, async () => { while (i < ops.length) { const k = i++; await ops[k]!() } }))
    await sleep(700)
    const ms = (1000 * (cpuOf(service.pid) - c0)) / ops.length
    if (record) (totals[name] ??= []).push(ms)
  }
  for (let round = 0; round < ROUNDS + 2; round++) {
    const record = round >= 2
    await phase("run", Array.from({ length: W * PER }, () => () => client.request("POST", `/api/v1/triggers/${trigger}/run`, { headers: auth })), record)
    const ids = new Map<string, string[]>()
    await phase("poll", workers.map((w) => async () => { const r = await client.request("GET", `/api/v1/workers/${w.id}/poll`, { headers: { authorization: `Bearer ${w.token}` } }); ids.set(w.id, r.body.runs.map((x: any) => x.id)) }), false)
    const each = (path: string, body?: unknown) => workers.flatMap((w) => (ids.get(w.id) ?? []).map((id) => () => client.request("POST", `/api/v1/workers/${w.id}/runs/${id}/${path}`, { headers: { authorization: `Bearer ${w.token}` }, ...(body ? { body } : {}) })))
    if (each("claim").length !== W * PER) console.log("polled", each("claim").length)
    await phase("claim", each("claim"), record)
    await phase("start", each("start"), record)
    await phase("complete", each("complete", { status: "succeeded", stdout: "ok", costUsd: "0.001" }), record)
  }
  for (const [k, v] of Object.entries(totals)) console.log(`${k.padEnd(9)} ${(v.reduce((a, b) => a + b, 0) / v.length).toFixed(3)} ms/op  [${v.map((x) => x.toFixed(2)).join(" ")}]`)
  client.close(); await receiver.close(); await service.stop()
}
main()
