/**
 * What the whole-process benches (cold start, idle memory) share: a free port,
 * a health probe and a liveness check of a service process they started.
 */
import * as net from "node:net"

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer()
    server.on("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as net.AddressInfo).port
      server.close(() => resolve(port))
    })
  })

/** A 200 from `url` within a second; any other answer or none is false. */
export const healthy = async (url: string) => {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(1000) })
    await res.arrayBuffer()
    return res.status === 200
  } catch {
    return false
  }
}

export const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Stops a process group the bench started: SIGTERM, up to 15 s to exit, then SIGKILL. */
export const stopGroup = async (pid: number) => {
  try {
    process.kill(-pid, "SIGTERM")
  } catch {
    // the group is already gone
  }
  const deadline = Date.now() + 15_000
  while (alive(-pid) && Date.now() < deadline) await sleep(50)
  if (alive(-pid)) process.kill(-pid, "SIGKILL")
  while (alive(-pid)) await sleep(50)
}
