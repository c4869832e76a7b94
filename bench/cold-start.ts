/**
 * `npx tsx bench/cold-start.ts`: how long `npm start` takes from launch to the
 * first 200 on `/api/v1/health`, on the embedded database: the first start on
 * an empty DATA_DIR (creates the database, runs the migrations, writes the
 * development secrets) and a restart on the same directory. Prints the median
 * (and the spread) of a few runs of each. A benchmark, not a test.
 *
 * Options (env): COLD_START_RUNS (5), COLD_START_COMMAND (the command to time,
 * "npm start" by default). Several commands, comma-separated, are measured in
 * alternation, so a busy machine weighs on each alike: e.g.
 * COLD_START_COMMAND="npx tsx src/main.ts,npm start" compares the service
 * through the TypeScript loader (what `npm start` ran before the build) with
 * the compiled one.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { freePort, healthy, sleep, stopGroup } from "./lib/ServiceProcess.js"

const runs = Number(process.env.COLD_START_RUNS ?? 5)
const commands = (process.env.COLD_START_COMMAND ?? "npm start").split(",")
  .map((c) => c.split(" ").filter((s) => s.length > 0))
  .filter((c) => c.length > 0)
const root = path.resolve(import.meta.dirname, "..")

/**
 * One start: launch → first 200 on /api/v1/health, in milliseconds. The
 * command runs in a process group of its own (npm, its shell and the node
 * beneath), and the whole group is stopped afterwards, so nothing outlives a
 * measurement whatever the command does with signals.
 */
const timeStart = async (command: ReadonlyArray<string>, dataDir: string): Promise<number> => {
  const port = await freePort()
  const env: Record<string, string | undefined> = {
    ...process.env,
    PORT: String(port),
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    LOG_LEVEL: "Warn"
  }
  delete env.DATABASE_URL
  const started = performance.now()
  const child = spawn(command[0]!, command.slice(1), { cwd: root, env, detached: true, stdio: ["ignore", "ignore", "pipe"] })
  let stderr = ""
  child.stderr!.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString("utf8")).slice(-10_000)))
  const pid = child.pid!
  try {
    const url = `http://127.0.0.1:${port}/api/v1/health`
    for (;;) {
      if (await healthy(url)) return performance.now() - started
      if (child.exitCode !== null) throw new Error(`${command.join(" ")} exited with ${child.exitCode}:\n${stderr}`)
      if (performance.now() - started > 120_000) throw new Error(`no 200 on /api/v1/health after 120 s:\n${stderr}`)
      await sleep(10)
    }
  } finally {
    await stopGroup(pid)
  }
}

const median = (xs: ReadonlyArray<number>) => {
  const sorted = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

const first = commands.map(() => [] as Array<number>)
const restart = commands.map(() => [] as Array<number>)
// One start of each before measuring, so no figure includes filling the OS file cache.
for (const command of commands) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pts-cold-start-"))
  await timeStart(command, dir)
  fs.rmSync(dir, { recursive: true, force: true })
}
for (let i = 0; i < runs; i++) {
  for (const [c, command] of commands.entries()) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pts-cold-start-"))
    try {
      first[c]!.push(await timeStart(command, dir))
      restart[c]!.push(await timeStart(command, dir))
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }
}

const show = (label: string, xs: ReadonlyArray<number>) =>
  `  ${label.padEnd(30)} median ${Math.round(median(xs))} ms  (min ${Math.round(Math.min(...xs))}, max ${Math.round(Math.max(...xs))}, n=${xs.length})`
console.log(`cold start to the first 200 on /api/v1/health (embedded database), ${os.cpus().length} × ${os.cpus()[0]?.model ?? "unknown"}, Node ${process.version}, load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`)
for (const [c, command] of commands.entries()) {
  console.log(`\`${command.join(" ")}\``)
  console.log(show("first start, empty DATA_DIR", first[c]!))
  console.log(show("restart, same DATA_DIR", restart[c]!))
}
