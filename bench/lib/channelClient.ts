import WS from "ws"

/** A run as the channel pushes it (only what the bench reads). */
export interface PushedRun {
  readonly id: string
}

export interface ChannelWorkerOptions {
  /** The service's origin (`http://127.0.0.1:port`). */
  readonly baseUrl: string
  readonly token: string
  /** Runs the worker holds at once (the `Runs` request's slots). */
  readonly slots: number
  /** Called for each pushed run; the run is completed `succeeded` at once unless `complete` is false. */
  readonly onRun?: (run: PushedRun) => void
  /** Complete pushed runs (and give their slots back); default true. */
  readonly complete?: boolean
}

export interface ChannelWorker {
  /** Resolves once the socket is open and the `Runs` subscription sent; rejects if the upgrade fails. */
  readonly opened: Promise<void>
  /** Requests that failed, steps the service refused, and unexpected closes. */
  readonly errors: () => number
  readonly close: () => void
}

/**
 * A lean worker-channel client for the bench: the `ws` socket speaking the
 * `@effect/rpc` JSON protocol directly (one message per frame), exactly the
 * messages the worker SDK sends over the channel (`Runs` with its slots, an
 * `Ack` per push, completes batched while one is in flight, each giving back
 * its runs' slots, a `Ping` every 10 s), without the
 * SDK's fibers, schemas and heartbeat schedule, so the bench's own CPU per
 * run stays small beside the service's.
 */
export const openChannelWorker = (o: ChannelWorkerOptions): ChannelWorker => {
  const socket = new WS(`${o.baseUrl.replace(/^http/, "ws")}/api/v1/workers/me/channel`, {
    headers: { authorization: `Bearer ${o.token}` },
    perMessageDeflate: false
  })
  let nextId = 1
  let errors = 0
  let closing = false
  const pending = new Map<string, (exit: any) => void>()
  const send = (message: unknown) => {
    if (socket.readyState === WS.OPEN) socket.send(JSON.stringify(message))
  }
  const request = (tag: string, payload: unknown, onExit: (exit: any) => void) => {
    const id = String(nextId++)
    pending.set(id, onExit)
    send({ _tag: "Request", id, tag, payload, headers: [] })
  }

  // Slots given back: one Slots request in flight at a time, the rest added to the next.
  let freed = 0
  let slotsInFlight = false
  const giveBack = (n: number) => {
    freed += n
    if (slotsInFlight || freed === 0) return
    slotsInFlight = true
    const slots = Math.min(freed, 100)
    freed -= slots
    request("Slots", { slots }, (exit) => {
      if (exit._tag !== "Success") errors++
      slotsInFlight = false
      giveBack(0)
    })
  }

  // Completes: what finishes while one is in flight goes out in the next (the SDK's Batcher).
  let queue: Array<string> = []
  let completing = false
  const flush = () => {
    if (completing || queue.length === 0) return
    completing = true
    const batch = queue.slice(0, 100)
    queue = queue.slice(100)
    // The completed runs' slots go back with the complete (the service grants them once it answers).
    request("Complete", { runs: batch.map((runId) => ({ runId, status: "succeeded", stdout: "ok", costUsd: "0.001" })), slots: batch.length }, (exit) => {
      completing = false
      if (exit._tag !== "Success") {
        errors += batch.length
        giveBack(batch.length)
      } else errors += exit.value.rejected.length
      flush()
    })
  }

  const runsId = String(nextId++)
  socket.on("message", (data) => {
    const message = JSON.parse(String(data))
    switch (message._tag) {
      case "Chunk": {
        if (message.requestId !== runsId) return
        send({ _tag: "Ack", requestId: runsId })
        for (const event of message.values) {
          for (const run of event.runs as Array<PushedRun>) {
            o.onRun?.(run)
            if (o.complete !== false) queue.push(run.id)
          }
        }
        flush()
        return
      }
      case "Exit": {
        const done = pending.get(message.requestId)
        pending.delete(message.requestId)
        if (done !== undefined) done(message.exit)
        else if (message.requestId === runsId && !closing) errors++
        return
      }
      case "Defect":
        errors++
        return
    }
  })
  const ping = setInterval(() => send({ _tag: "Ping" }), 10_000)
  socket.on("close", () => {
    clearInterval(ping)
    if (!closing) errors++
  })
  const opened = new Promise<void>((resolve, reject) => {
    socket.once("open", () => {
      send({ _tag: "Request", id: runsId, tag: "Runs", payload: { slots: o.slots }, headers: [] })
      resolve()
    })
    socket.once("unexpected-response", (_request, response) => reject(new Error(`channel upgrade refused: ${response.statusCode}`)))
    socket.once("error", reject)
  })
  // Past the open, a socket error also closes it (counted there).
  socket.on("error", () => undefined)
  return {
    opened,
    errors: () => errors,
    close: () => {
      closing = true
      clearInterval(ping)
      socket.terminate()
    }
  }
}
