import { execFileSync } from "node:child_process"
import { request } from "../support/Process.js"

/** The pids of a process's children (a primary's service processes). */
export const childPids = (pid: number): Array<number> => {
  try {
    return execFileSync("ps", ["-o", "pid=", "--ppid", String(pid)], { encoding: "utf8" })
      .split("\n").map((line) => Number(line.trim())).filter((n) => n > 0)
  } catch {
    // ps exits 1 when there is none.
    return []
  }
}

/** The pids named in the `http request` log lines for `route`. */
export const pidsServing = (output: string, route: string): Set<number> => {
  const pids = new Set<number>()
  for (const line of output.split("\n")) {
    if (!line.includes(`message="http request"`) || !line.includes(`route=${route}`)) continue
    const pid = /\bpid=(\d+)/.exec(line)?.[1]
    if (pid !== undefined) pids.add(Number(pid))
  }
  return pids
}

/**
 * A request on a connection of its own: the primary hands each new
 * connection to the next service process, so a series of these reaches them all.
 */
export const fresh = (baseUrl: string, method: string, path: string, options: Parameters<typeof request>[3] = {}) =>
  request(baseUrl, method, path, { ...options, headers: { connection: "close", ...options.headers } })
