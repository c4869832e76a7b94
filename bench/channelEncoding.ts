/**
 * `npx tsx bench/channelEncoding.ts`: what encoding the worker channel's
 * messages costs, JSON (`RpcSerialization.json`, what the channel uses)
 * against MessagePack (`RpcSerialization.msgPack`, msgpackr with records):
 * CPU microseconds to encode and decode each of the hot messages, and its
 * size, in one process. The messages are the channel's own, as the service
 * and the SDK put them on the wire: a push of 1 and of 10 runs, a complete of
 * 10 runs and its answer, an ack.
 */
import * as RpcSerialization from "@effect/rpc/RpcSerialization"
import { randomUUID } from "node:crypto"

const at = () => new Date().toISOString()
const run = (status: string) => ({
  id: randomUUID(), triggerId: randomUUID(), environmentId: randomUUID(), status, attempt: 1,
  retryOfRunId: null, replayOfRunId: null, tags: ["nightly"], workerId: randomUUID(), input: { branch: "main", sha: "4f2a9c1" },
  durationMs: status === "succeeded" ? 12 : null, shortMessage: status === "succeeded" ? "ok" : null, errorMessage: null,
  costUsd: status === "succeeded" ? "0.001" : null, faultClass: status === "succeeded" ? "none" : null,
  createdAt: at(), assignedAt: at(), claimedAt: at(), startedAt: at(), lastHeartbeatAt: null,
  endedAt: status === "succeeded" ? at() : null, cancelRequestedAt: null, concurrencyKey: null, waitReason: null,
  waitPool: null, availableAt: null, priority: 0, expiresAt: null
})
const polled = () => ({ ...run("running"), trigger: { id: randomUUID(), name: "build", input: { branch: "main" }, command: null, timeoutSeconds: 3600, heartbeatTimeoutSeconds: 60 } })

const push = (n: number) => ({ _tag: "Chunk", requestId: "1", values: [{ runs: Array.from({ length: n }, polled), cancelRequested: [] }] })
const completes = Array.from({ length: 10 }, () => ({ runId: randomUUID(), status: "succeeded", stdout: "ok", costUsd: "0.001" }))
const messages: Record<string, unknown> = {
  "push, 1 run": push(1),
  "push, 10 runs": push(10),
  "complete, 10 runs": { _tag: "Request", id: "7", tag: "Complete", payload: { runs: completes, slots: 10 }, headers: [] },
  "its answer": { _tag: "Exit", requestId: "7", exit: { _tag: "Success", value: { runs: Array.from({ length: 10 }, () => run("succeeded")), rejected: [], slotsGranted: 10 } } },
  "ack": { _tag: "Ack", requestId: "1" }
}

const time = (rounds: number, f: () => void) => {
  for (let i = 0; i < 2_000; i++) f()
  const t0 = process.cpuUsage()
  for (let i = 0; i < rounds; i++) f()
  const used = process.cpuUsage(t0)
  return ((used.user + used.system) / rounds)
}

const rows: Array<Array<string>> = [["message", "JSON bytes", "JSON µs (encode + decode)", "MessagePack bytes", "MessagePack µs (encode + decode)"]]
for (const [name, message] of Object.entries(messages)) {
  const json = RpcSerialization.json.unsafeMake()
  const pack = RpcSerialization.msgPack.unsafeMake()
  const jsonBytes = Buffer.byteLength(json.encode(message) as string)
  const packBytes = (pack.encode(message) as Uint8Array).byteLength
  // As the WebSocket carries them: JSON as a text frame (a string both ends), MessagePack as bytes.
  const jsonUs = time(20_000, () => json.decode(json.encode(message) as string))
  const packUs = time(20_000, () => pack.decode(pack.encode(message) as Uint8Array))
  rows.push([name, String(jsonBytes), jsonUs.toFixed(1), String(packBytes), packUs.toFixed(1)])
}
const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)))
for (const row of rows) process.stdout.write(row.map((cell, i) => cell.padEnd(widths[i]!)).join("  ") + "\n")
