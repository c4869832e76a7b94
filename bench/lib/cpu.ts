import * as fs from "node:fs"

const statFields = (pid: number | string): Array<string> | undefined => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  } catch {
    return undefined
  }
}

/** CPU seconds (user + system) a process has used, from /proc; 0 where /proc is missing. */
const cpuSecondsOf = (pid: number | string): number => {
  const fields = statFields(pid)
  return fields === undefined ? 0 : (Number(fields[11]) + Number(fields[12])) / 100
}

/** The live children of a process (a service primary's service processes, WEB_CONCURRENCY). */
export const childrenOf = (pid: number): Array<number> => {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter((s) => s.length > 0).map(Number)
  } catch {
    return []
  }
}

/**
 * CPU seconds of a service: its process, its live children, and the children
 * it has reaped (a replaced service process), so several processes count as one service.
 */
export const serviceCpuSeconds = (pid: number): number => {
  const fields = statFields(pid)
  const reaped = fields === undefined ? 0 : (Number(fields[13]) + Number(fields[14])) / 100
  return cpuSecondsOf(pid) + reaped + childrenOf(pid).reduce((sum, child) => sum + cpuSecondsOf(child), 0)
}

/**
 * CPU seconds of every Postgres server process on this machine (the local
 * server the bench uses), with the backends that have exited: their CPU is
 * counted in their parent's (the postmaster's) reaped-children time.
 */
const postgresCpuSeconds = (): number => {
  let total = 0
  try {
    for (const pid of fs.readdirSync("/proc")) {
      if (!/^\d+$/.test(pid)) continue
      try {
        if (fs.readFileSync(`/proc/${pid}/comm`, "utf8").trim() !== "postgres") continue
        const fields = statFields(pid)
        if (fields !== undefined) total += (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / 100
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
  /** CPU milliseconds per run, as spent by the service (all its processes), the Postgres server and the bench itself. */
  readonly service: number
  readonly postgres: number
  readonly bench: number
}

/**
 * Where the machine's CPU went during a scenario, per run: the figure that
 * bounds throughput when every process shares the same cores.
 */
export const cpuMeter = (servicePid: number) => {
  const service0 = serviceCpuSeconds(servicePid)
  const postgres0 = postgresCpuSeconds()
  const bench0 = process.cpuUsage()
  return (runs: number): CpuPerRun => {
    const bench = process.cpuUsage(bench0)
    const per = (seconds: number) => Math.round((seconds * 1000 / runs) * 100) / 100
    return {
      service: per(serviceCpuSeconds(servicePid) - service0),
      postgres: per(postgresCpuSeconds() - postgres0),
      bench: per((bench.user + bench.system) / 1e6)
    }
  }
}
