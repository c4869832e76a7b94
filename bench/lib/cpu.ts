import * as fs from "node:fs"

/** CPU seconds (user + system) a process has used, from /proc; 0 where /proc is missing. */
const cpuSecondsOf = (pid: number | string): number => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return 0
  }
}

/** CPU seconds of every Postgres server process on this machine (the local server the bench uses). */
const postgresCpuSeconds = (): number => {
  let total = 0
  try {
    for (const pid of fs.readdirSync("/proc")) {
      if (!/^\d+$/.test(pid)) continue
      try {
        if (fs.readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "postgres") total += cpuSecondsOf(pid)
      } catch {
        // gone meanwhile
      }
    }
  } catch {
    // no /proc
  }
  return total
}

export interface CpuPerRun {
  /** CPU milliseconds per run, as spent by the service process, the Postgres server and the bench itself. */
  readonly service: number
  readonly postgres: number
  readonly bench: number
}

/**
 * Where the machine's CPU went during a scenario, per run: the figure that
 * bounds throughput when every process shares the same cores.
 */
export const cpuMeter = (servicePid: number) => {
  const service0 = cpuSecondsOf(servicePid)
  const postgres0 = postgresCpuSeconds()
  const bench0 = process.cpuUsage()
  return (runs: number): CpuPerRun => {
    const bench = process.cpuUsage(bench0)
    const per = (seconds: number) => Math.round((seconds * 1000 / runs) * 100) / 100
    return {
      service: per(cpuSecondsOf(servicePid) - service0),
      postgres: per(postgresCpuSeconds() - postgres0),
      bench: per((bench.user + bench.system) / 1e6)
    }
  }
}
