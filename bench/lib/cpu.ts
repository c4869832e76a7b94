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

/** Write syscalls (`syscw` of /proc/<pid>/io) a process has made; 0 where /proc is missing or closed to us. */
export const writeSyscallsOf = (pid: number | string): number => {
  try {
    const line = fs.readFileSync(`/proc/${pid}/io`, "utf8").split("\n").find((l) => l.startsWith("syscw:"))
    return line === undefined ? 0 : Number(line.slice(6).trim())
  } catch {
    return 0
  }
}

/** Write syscalls of a service: its process and its live service processes (reaped ones are not counted by /proc). */
const serviceWrites = (pid: number): number => writeSyscallsOf(pid) + childrenOf(pid).reduce((sum, child) => sum + writeSyscallsOf(child), 0)

export interface CpuPerRun {
  /** CPU milliseconds per run, as spent by the service (all its processes), the Postgres server and the bench itself. */
  readonly service: number
  readonly postgres: number
  readonly bench: number
  /** Write syscalls per run of the service (all its processes): each socket write (HTTP, WebSocket, Postgres) is one. */
  readonly serviceWrites: number
  /** With worker processes of their own (the SDK scenario): their CPU milliseconds and write syscalls per run. */
  readonly workers?: number | undefined
  readonly workerWrites?: number | undefined
}

/**
 * Where the machine's CPU went during a scenario, per run: the figure that
 * bounds throughput when every process shares the same cores. `workers`: the
 * pids of worker processes of their own, measured apart.
 */
export const cpuMeter = (servicePid: number, workers: ReadonlyArray<number> = []) => {
  const service0 = serviceCpuSeconds(servicePid)
  const writes0 = serviceWrites(servicePid)
  const workers0 = workers.map((pid) => ({ cpu: cpuSecondsOf(pid), writes: writeSyscallsOf(pid) }))
  const postgres0 = postgresCpuSeconds()
  const bench0 = process.cpuUsage()
  return (runs: number): CpuPerRun => {
    const bench = process.cpuUsage(bench0)
    const per = (seconds: number) => Math.round((seconds * 1000 / runs) * 100) / 100
    const perRun = (count: number) => Math.round((count / runs) * 100) / 100
    const figures = {
      service: per(serviceCpuSeconds(servicePid) - service0),
      postgres: per(postgresCpuSeconds() - postgres0),
      bench: per((bench.user + bench.system) / 1e6),
      serviceWrites: perRun(serviceWrites(servicePid) - writes0)
    }
    if (workers.length === 0) return figures
    return {
      ...figures,
      workers: per(workers.reduce((sum, pid, i) => sum + cpuSecondsOf(pid) - workers0[i]!.cpu, 0)),
      workerWrites: perRun(workers.reduce((sum, pid, i) => sum + writeSyscallsOf(pid) - workers0[i]!.writes, 0))
    }
  }
}
