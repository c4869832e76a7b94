/**
 * `npm run bench:idle-memory`: the resident memory (RSS) of an idle service
 * on the embedded database, as `ps` shows it: the first start on an empty
 * DATA_DIR (creates the database, runs the migrations) and a restart on the
 * same directory. Each start is left alone until it settles, then the RSS of
 * every process it runs (the command and all its descendants) is read from
 * /proc a few times and the largest sum is reported. Exits 1 when a start
 * stays above the limit: a check to run after changing start-up or the
 * embedded database. Linux only (/proc).
 *
 * Options (env): IDLE_MEMORY_COMMAND ("node dist/main.js"; build first),
 * IDLE_MEMORY_SETTLE_SECONDS (20: from the first 200 on /api/v1/health to
 * the readings), IDLE_MEMORY_LIMIT_MB (400).
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { freePort, healthy, sleep, stopGroup } from "./lib/ServiceProcess.js"

const command = (process.env.IDLE_MEMORY_COMMAND ?? "node dist/main.js").split(" ").filter((s) => s.length > 0)
const settleMs = Number(process.env.IDLE_MEMORY_SETTLE_SECONDS ?? 20) * 1000
const limitMb = Number(process.env.IDLE_MEMORY_LIMIT_MB ?? 400)
const root = path.resolve(import.meta.dirname, "..")

interface Proc {
  readonly pid: number
  readonly ppid: number
  readonly rssKb: number
  readonly command: string
}

/** Every process on the machine with its parent and VmRSS (those that vanish while read are skipped). */
const processes = (): Array<Proc> => {
  const all: Array<Proc> = []
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const status = fs.readFileSync(`/proc/${entry}/status`, "utf8")
      const field = (name: string) => status.match(new RegExp(`^${name}:\\s+(\\S+)`, "m"))?.[1]
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").join(" ").trim()
      all.push({ pid: Number(entry), ppid: Number(field("PPid")), rssKb: Number(field("VmRSS") ?? 0), command: cmdline.slice(0, 80) })
    } catch {
      // gone meanwhile
    }
  }
  return all
}

/** `pid` and all its descendants. */
const tree = (pid: number): Array<Proc> => {
  const all = processes()
  const found = all.filter((p) => p.pid === pid)
  for (let i = 0; i < found.length; i++) found.push(...all.filter((p) => p.ppid === found[i]!.pid))
  return found
}

interface Reading {
  readonly ready: number
  readonly totalMb: number
  readonly processes: ReadonlyArray<Proc>
}

/** One start on `dataDir`: time to the first 200, then the largest RSS sum over the readings after settling. */
const measure = async (dataDir: string): Promise<Reading> => {
  const port = await freePort()
  const env: Record<string, string | undefined> = { ...process.env, PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dataDir, LOG_LEVEL: "Warn" }
  delete env.DATABASE_URL
  const started = performance.now()
  const child = spawn(command[0]!, command.slice(1), { cwd: root, env, detached: true, stdio: ["ignore", "ignore", "pipe"] })
  let stderr = ""
  child.stderr!.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString("utf8")).slice(-10_000)))
  const pid = child.pid!
  try {
    const url = `http://127.0.0.1:${port}/api/v1/health`
    while (!(await healthy(url))) {
      if (child.exitCode !== null) throw new Error(`${command.join(" ")} exited with ${child.exitCode}:\n${stderr}`)
      if (performance.now() - started > 120_000) throw new Error(`no 200 on /api/v1/health after 120 s:\n${stderr}`)
      await sleep(50)
    }
    const ready = performance.now() - started
    await sleep(settleMs)
    let best: Reading = { ready, totalMb: 0, processes: [] }
    for (let i = 0; i < 5; i++) {
      const procs = tree(pid)
      const totalMb = procs.reduce((sum, p) => sum + p.rssKb, 0) / 1024
      if (totalMb > best.totalMb) best = { ready, totalMb, processes: procs }
      await sleep(1000)
    }
    return best
  } finally {
    await stopGroup(pid)
  }
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pts-idle-memory-"))
const results: Array<[string, Reading]> = []
try {
  results.push(["first start, empty DATA_DIR", await measure(dir)])
  results.push(["restart, same DATA_DIR", await measure(dir)])
} finally {
  fs.rmSync(dir, { recursive: true, force: true })
}

console.log(`idle RSS of \`${command.join(" ")}\` (embedded database), ${settleMs / 1000} s after the first 200 on /api/v1/health; Node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? "unknown"}`)
let over = false
for (const [label, reading] of results) {
  over ||= reading.totalMb > limitMb
  console.log(`  ${label.padEnd(30)} ${Math.round(reading.totalMb)} MB in ${reading.processes.length} process(es)  (ready after ${(reading.ready / 1000).toFixed(1)} s)${reading.totalMb > limitMb ? `  OVER the ${limitMb} MB limit` : ""}`)
  for (const p of reading.processes) console.log(`    pid ${p.pid}: ${Math.round(p.rssKb / 1024)} MB  ${p.command}`)
}
process.exit(over ? 1 : 0)
