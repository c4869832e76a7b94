import * as http from "node:http"

/** A local webhook receiver that records when each run's delivery arrived. */
export const startReceiver = async () => {
  const arrivals = new Map<string, number>()
  let count = 0
  const waiters: Array<{ n: number; resolve: () => void }> = []
  const server = http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const at = Date.now()
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
        if (!arrivals.has(body.runId)) arrivals.set(body.runId, at)
      } catch {
        // not ours
      }
      count++
      res.writeHead(200).end("ok")
      for (let i = waiters.length - 1; i >= 0; i--) {
        if (arrivals.size >= waiters[i]!.n) {
          waiters[i]!.resolve()
          waiters.splice(i, 1)
        }
      }
    })
  })
  server.keepAliveTimeout = 60_000
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as import("node:net").AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}/hook`,
    arrivals,
    posts: () => count,
    /** Resolves once `n` distinct runs have been delivered (or after `timeoutMs`). */
    waitFor: (n: number, timeoutMs: number) =>
      new Promise<boolean>((resolve) => {
        if (arrivals.size >= n) return resolve(true)
        const timer = setTimeout(() => resolve(false), timeoutMs)
        waiters.push({ n, resolve: () => (clearTimeout(timer), resolve(true)) })
      }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}
