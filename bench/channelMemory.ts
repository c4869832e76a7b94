/**
 * `tsx bench/channelMemory.ts`: the heap one idle worker-channel connection
 * costs, on one service process (`WEB_CONCURRENCY=1`, heap after a full GC
 * through the probe). Opens `CHANNEL_MEMORY_N` (1,000) channels, measures,
 * and, with `CHANNEL_MEMORY_SNAPSHOTS=1`, writes a heap snapshot before and
 * with them (`--heapsnapshot-signal`, into bench/results/) to diff by
 * constructor. `CHANNEL_MEMORY_SUBSCRIBE=0` opens the sockets without the
 * `Runs` subscription (the upgraded connection alone). A measuring tool
 * beside `streaming-idle`, not a scenario of `npm run bench`.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import WS from "ws"
import { openChannelWorker, type ChannelWorker } from "./lib/channelClient.js"
import { createDatabase } from "./lib/database.js"
import { insertWorkers } from "./lib/fleet.js"
import { makeClient } from "./lib/http.js"
import { rssMbOf, startService } from "./lib/server.js"
import { setupTenant } from "./lib/setup.js"
import { sleep } from "./lib/stats.js"

const n = Number(process.env.CHANNEL_MEMORY_N ?? 1000)
const subscribe = process.env.CHANNEL_MEMORY_SUBSCRIBE !== "0"
const snapshots = process.env.CHANNEL_MEMORY_SNAPSHOTS === "1"
const baseUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"
const outDir = path.resolve("bench/results")

/** A socket that only upgrades: no `Runs`, no pings. */
const bareSocket = (url: string, token: string) => {
  const socket = new WS(`${url.replace(/^http/, "ws")}/api/v1/workers/me/channel`, {
    headers: { authorization: `Bearer ${token}` },
    perMessageDeflate: false
  })
  const opened = new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve())
    socket.once("error", reject)
  })
  return { opened, errors: () => 0, close: () => socket.terminate() }
}

const snapshot = async (pid: number, label: string): Promise<string | undefined> => {
  if (!snapshots) return undefined
  const before = new Set(fs.readdirSync(process.cwd()))
  process.kill(pid, "SIGUSR2")
  for (let i = 0; i < 600; i++) {
    await sleep(500)
    const file = fs.readdirSync(process.cwd()).find((f) => f.endsWith(".heapsnapshot") && !before.has(f))
    if (file === undefined) continue
    // Written when its size stops changing.
    const size = fs.statSync(file).size
    await sleep(1500)
    if (fs.statSync(file).size !== size || size === 0) continue
    const target = path.join(outDir, `channel-${label}.heapsnapshot`)
    fs.renameSync(file, target)
    return target
  }
  return undefined
}

const main = async () => {
  fs.mkdirSync(outDir, { recursive: true })
  if (snapshots) process.env.BENCH_NODE_OPTIONS = `${process.env.BENCH_NODE_OPTIONS ?? ""} --heapsnapshot-signal=SIGUSR2`.trim()
  const databaseUrl = await createDatabase(baseUrl, "pts_bench_channel_memory")
  const service = await startService({ DATABASE_URL: databaseUrl, WEB_CONCURRENCY: "1" })
  const client = makeClient(service.url)
  const channels: Array<Pick<ChannelWorker, "opened" | "errors" | "close">> = []
  try {
    const tenant = await setupTenant(client, service.url)
    const workers = await insertWorkers(databaseUrl, tenant.environmentId, n, "memory")
    await sleep(2000)
    const heap0 = await service.heapMb()
    const rss0 = rssMbOf(service.pid)
    const snap0 = await snapshot(service.pid, "0")
    for (let from = 0; from < workers.length; from += 200) {
      await Promise.all(workers.slice(from, from + 200).map((worker) => {
        const channel = subscribe
          ? openChannelWorker({ baseUrl: service.url, token: worker.token, slots: 1, complete: false })
          : bareSocket(service.url, worker.token)
        channels.push(channel)
        return channel.opened
      }))
    }
    await sleep(5000)
    const heap1 = await service.heapMb()
    const rss1 = rssMbOf(service.pid)
    const snap1 = await snapshot(service.pid, String(n))
    const errors = channels.reduce((sum, c) => sum + c.errors(), 0)
    for (const channel of channels) channel.close()
    channels.length = 0
    await sleep(3000)
    const heap2 = await service.heapMb()
    console.log(JSON.stringify({
      connections: n,
      subscribed: subscribe,
      errors,
      heapMb: { before: heap0, holding: heap1, closed: heap2 },
      kbPerConnection: Math.round(((heap1 - heap0) * 1024 / n) * 10) / 10,
      rssMb: { before: rss0, holding: rss1 },
      snapshots: [snap0, snap1].filter((s) => s !== undefined)
    }))
  } finally {
    for (const channel of channels) channel.close()
    client.close()
    await service.stop()
  }
}

main().then(() => process.exit(0), (error) => {
  console.error(error)
  process.exit(1)
})
