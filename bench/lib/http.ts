import * as http from "node:http"

/** A lean keep-alive JSON client, so the benchmark measures the service rather than its client. */
export interface Reply {
  readonly status: number
  readonly body: any
}

export const makeClient = (baseUrl: string, maxSockets = 256) => {
  const url = new URL(baseUrl)
  const agent = new http.Agent({ keepAlive: true, maxSockets })
  const request = (method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}) =>
    new Promise<Reply>((resolve, reject) => {
      const payload = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body))
      const req = http.request({
        host: url.hostname,
        port: url.port,
        method,
        path,
        agent,
        headers: {
          ...(payload ? { "content-type": "application/json", "content-length": String(payload.length) } : {}),
          ...options.headers
        }
      }, (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (c: Buffer) => chunks.push(c))
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8")
          let body: any = text
          try {
            body = text ? JSON.parse(text) : undefined
          } catch {
            // keep text
          }
          resolve({ status: res.statusCode ?? 0, body })
        })
        res.on("error", reject)
      })
      req.on("error", reject)
      if (payload) req.write(payload)
      req.end()
    })
  return { request, close: () => agent.destroy() }
}

export type Client = ReturnType<typeof makeClient>

export const expectStatus = (reply: Reply, status: number | ReadonlyArray<number>, what: string): Reply => {
  const ok = Array.isArray(status) ? status.includes(reply.status) : reply.status === status
  if (!ok) throw new Error(`${what}: HTTP ${reply.status} ${JSON.stringify(reply.body)}`)
  return reply
}
