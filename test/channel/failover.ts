import * as net from "node:net"

export interface FailoverProxy {
  readonly url: string
  /** Connections forwarded so far, per upstream port. */
  readonly forwarded: Map<number, number>
  readonly close: () => Promise<void>
}

/**
 * A TCP proxy in front of service instances, as a load balancer with
 * failover would be: each new connection goes to the first upstream that
 * accepts it, and lives and dies with that upstream (a killed instance's
 * connections are cut, and the clients' next ones land on a survivor).
 */
export const startFailoverProxy = async (upstreams: ReadonlyArray<number>): Promise<FailoverProxy> => {
  const forwarded = new Map<number, number>()
  const sockets = new Set<net.Socket>()
  const track = (socket: net.Socket) => {
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
    // Resets are the point of the exercise: each side ends the other on close.
    socket.on("error", () => undefined)
  }
  const server = net.createServer((client) => {
    track(client)
    client.pause()
    const attempt = (index: number) => {
      const port = upstreams[index]
      if (port === undefined) return client.destroy()
      const upstream = net.connect(port, "127.0.0.1")
      let connected = false
      upstream.once("error", () => {
        if (!connected) attempt(index + 1)
      })
      upstream.once("connect", () => {
        connected = true
        track(upstream)
        forwarded.set(port, (forwarded.get(port) ?? 0) + 1)
        client.pipe(upstream)
        upstream.pipe(client)
        upstream.on("close", () => client.destroy())
        client.on("close", () => upstream.destroy())
        client.resume()
      })
    }
    attempt(0)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as net.AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}`,
    forwarded,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      })
  }
}
